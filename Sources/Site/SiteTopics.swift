/// The site's MQTT topic layout (docs/formats.md): every topic BlueDot publishes or subscribes to, in one place.
public struct SiteTopics: Sendable, Hashable {
    /// The site name, one topic level (no `/`, `+` or `#`).
    public let site: String

    /// Topics of the site `site`; nil when the name cannot be one topic level.
    public init?(site: String) {
        guard Self.isTopicLevel(site) else { return nil }
        self.site = site
    }

    /// Whether `name` can stand as one topic level: not empty, no `/`, no wildcard, no NUL.
    public static func isTopicLevel(_ name: String) -> Bool {
        !name.isEmpty && !name.contains(where: { $0 == "/" || $0 == "+" || $0 == "#" || $0 == "\0" })
    }

    /// `bluedot/<site>`.
    public var root: String { "bluedot/\(site)" }
    /// Where `receiver` publishes its sighting batches.
    public func sightings(receiver: String) -> String { "\(root)/sightings/\(receiver)" }
    /// Every receiver's sightings (the solver's subscription).
    public var allSightings: String { "\(root)/sightings/+" }
    /// A receiver's status: retained `online`, last will `offline`.
    public func receiverStatus(receiver: String) -> String { "\(root)/receivers/\(receiver)/status" }
    /// Every receiver's status.
    public var allReceiverStatus: String { "\(root)/receivers/+/status" }
    /// A receiver's telemetry (every 10 s).
    public func receiverTelemetry(receiver: String) -> String { "\(root)/receivers/\(receiver)/telemetry" }
    /// Every receiver's telemetry.
    public var allReceiverTelemetry: String { "\(root)/receivers/+/telemetry" }
    /// The latest fix of `target`, retained.
    public func location(target: String) -> String { "\(root)/locations/\(target)" }
    /// The solver's status: retained `online`, last will `offline`.
    public var solverStatus: String { "\(root)/status" }
    /// The site's venue file as the solver uses it, retained (formats.md): a viewer of many sites needs no copy.
    public var venue: String { "\(root)/venue" }
}
