/// What the solver knows of one receiver of the site: shown by the API, the metrics and the map.
public struct ReceiverInfo: Sendable, Hashable {
    /// What kind of node it is.
    public enum Kind: String, Sendable, Hashable {
        /// A BlueDot gateway publishing sighting batches.
        case bluedot
        /// An ESP32 running ESPresense firmware.
        case espresense
    }

    /// The receiver's id (its anchor id in the venue).
    public var id: String
    /// BlueDot or ESPresense.
    public var kind: Kind
    /// Whether the venue has an anchor with this id (sightings of unknown receivers are counted, not used).
    public var known: Bool
    /// The last status it published (`online`, `offline`), nil when none was seen.
    public var status: String?
    /// The solver's clock when it last delivered sightings, Unix seconds.
    public var lastHeard: Double?
    /// The solver's clock when anything last came from it (sightings, status, telemetry every 10 s), Unix seconds.
    public var lastMessage: Double?
    /// Sightings received.
    public var sightings = 0
    /// Sightings per second over the last few seconds.
    public var sightingsPerSecond = 0.0
    /// Batches received.
    public var batches = 0
    /// Batches missing by their sequence numbers: lost between the receiver and the solver (sightings dropped by
    /// the receiver's own buffer leave no gap; its telemetry counts them).
    public var missedBatches = 0
    /// Seconds added to the receiver's clock to read the solver's (`ClockOffsetEstimator`); nil for ESPresense
    /// nodes, whose reports carry no time.
    public var clockOffset: Double?
    /// How much later than the fastest trip its batches arrive (median), seconds.
    public var clockJitter: Double?
    /// Sightings that came after the reorder window had passed their time (dropped).
    public var late = 0
    /// Its last telemetry object, as published.
    public var telemetry: String?

    /// A receiver first heard of now.
    public init(id: String, kind: Kind, known: Bool) {
        self.id = id
        self.kind = kind
        self.known = known
    }
}
