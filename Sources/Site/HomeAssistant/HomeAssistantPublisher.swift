import BeaconLocation
import BlueDotCore

/// An observer of the solver's `LocationSource` that keeps Home Assistant told through MQTT discovery
/// (`HomeAssistantDiscovery`), over the solver's own connection: the solver's device and each allowed target's
/// entities are announced (retained configs, again on every new connection), states go out when they change,
/// attributes at most once per `attributesIntervalSeconds` of fix time (and at once on a change of room, floor or
/// `lastKnown`), and a target the source forgets gets empty retained messages on every topic it had, so Home
/// Assistant removes its entities. The rules are `HomeAssistantLedger`'s.
///
/// Availability needs nothing from here: the entities follow the solver's status topic, which the client's birth
/// (`online`), farewell and last will (`offline`) keep. Callbacks run on the source's observer task; `publish`
/// never blocks, so the lock is held only while messages are handed to libmosquitto.
public final class HomeAssistantPublisher: LocationSourceObserver, Sendable {
    /// Counters since start.
    public struct Statistics: Sendable, Hashable {
        /// Discovery configs sent (targets' and the solver's).
        public var configs = 0
        /// Tracker and room sensor states sent.
        public var states = 0
        /// Attribute payloads sent.
        public var attributes = 0
        /// Attribute payloads held back by the interval.
        public var attributesHeldBack = 0
        /// Empty retained messages sent for forgotten targets.
        public var cleared = 0
        /// Messages the client refused (link down); sent again with a later event.
        public var refused = 0
        /// Fixes of targets not announced (the allow-list, or an id that cannot be a topic level).
        public var skipped = 0
    }

    /// What is published where.
    public let discovery: HomeAssistantDiscovery
    /// Shortest fix time between two attribute payloads of one target, seconds (0: every changed fix).
    public let attributesIntervalSeconds: Double
    private let client: MQTTClient
    private let ledger: LockedValue<HomeAssistantLedger>

    /// Creates the publisher over `client`, the solver's connection (the one whose birth and last will keep
    /// `discovery.topics.solverStatus`). `attributesIntervalSeconds` bounds the attribute rate per target (default
    /// 1 s, the engine's default grid: every fix).
    public init(client: MQTTClient, discovery: HomeAssistantDiscovery, attributesIntervalSeconds: Double = 1) {
        self.client = client
        self.discovery = discovery
        self.attributesIntervalSeconds = max(0, attributesIntervalSeconds)
        ledger = LockedValue(HomeAssistantLedger(discovery: discovery, attributesIntervalSeconds: attributesIntervalSeconds))
    }

    /// The targets announced and not forgotten, sorted.
    public var announced: [String] { ledger.withLock { $0.announced.sorted() } }

    /// Forgotten targets whose retained messages are not all cleared yet (the link was down), sorted.
    public var clearing: [String] { ledger.withLock { $0.clearing.keys.sorted() } }

    /// The counters.
    public var statistics: Statistics { ledger.withLock { $0.statistics } }

    /// Announces new targets and publishes what changed.
    public func onLocationsUpdated(_ locations: [Location], source: LocationSource) {
        let connection = client.statistics.connects
        ledger.withLock { $0.update(locations, connection: connection, send: send) }
    }

    /// Clears forgotten targets' configs, states and attributes.
    public func onLocationsDeleted(_ targetIDs: [String], source: LocationSource) {
        let connection = client.statistics.connects
        ledger.withLock { $0.forget(targetIDs, connection: connection, send: send) }
    }

    /// Announces the solver's device as soon as the source reports (and sends clears left over).
    public func onStatusChanged(_ status: LocationSourceStatus, source: LocationSource) {
        let connection = client.statistics.connects
        _ = ledger.withLock { $0.begin(connection: connection, send: send) }
    }

    /// Hands a message to the client; true when it took it.
    private func send(_ message: MQTTMessage) -> Bool {
        client.publish(message) == .sent
    }
}
