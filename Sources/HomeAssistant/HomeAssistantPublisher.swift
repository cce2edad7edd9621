import BeaconLocation
import BlueDotCore
import LocationBus
import Positioning
import Site

/// An observer of the solver's `LocationSource` that keeps Home Assistant told through MQTT discovery
/// (`HomeAssistantDiscovery`), over the solver's own connection: the solver's device and each allowed target's
/// entities are announced (retained configs, again on every new connection), the tracker follows the locations'
/// `presence` (the source's `PresenceRule`; without it, `home` while the target is located and `not_home` after
/// `awayAfterSeconds` of the injected clock without a fix), a target expected but not heard since the start goes
/// `not_home` after `awayAfterSeconds` (`sweep()`, which the gateway's housekeeping calls every second), states go
/// out when they change, attributes at most once per `attributesIntervalSeconds` of fix time (and at once on a
/// change of room, floor or `lastKnown`). Entities last:
/// a target the source forgets keeps them; only the targets given as `removing`, and those that lost the name an
/// earlier run announced them with (`adopt`), are removed. The rules are `HomeAssistantLedger`'s.
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
        /// Empty retained messages sent for removed targets.
        public var cleared = 0
        /// Times a target went `not_home` (the away timeout).
        public var away = 0
        /// Messages the client refused (link down); sent again with a later event.
        public var refused = 0
        /// Fixes of targets not announced (the allow-list, or an id that cannot be a topic level).
        public var skipped = 0
    }

    /// What is published where; `use(discovery:)` replaces it.
    public var discovery: HomeAssistantDiscovery { ledger.withLock { $0.discovery } }
    /// Shortest fix time between two attribute payloads of one target, seconds (0: every changed fix).
    public let attributesIntervalSeconds: Double
    /// Clock seconds without a current fix after which a target is `not_home`.
    public let awayAfterSeconds: Double
    private let client: MQTTClient
    private let clock: any BlueDotClock
    private let ledger: LockedValue<HomeAssistantLedger>

    /// Creates the publisher over `client`, the solver's connection (the one whose birth and last will keep
    /// `discovery.topics.solverStatus`), reading time from `clock`. `attributesIntervalSeconds` bounds the attribute
    /// rate per target (default 1 s, the engine's default grid: every fix); `awayAfterSeconds` is the away timeout;
    /// the `removing` targets have their entities removed (configs, then states `clearDelaySeconds` later) and are
    /// not announced.
    public init(client: MQTTClient, discovery: HomeAssistantDiscovery, clock: any BlueDotClock,
                attributesIntervalSeconds: Double = 1,
                awayAfterSeconds: Double = PresenceRule.defaultAwayAfterSeconds,
                removing: [String] = [], clearDelaySeconds: Double = 3) {
        self.client = client
        self.clock = clock
        self.attributesIntervalSeconds = max(0, attributesIntervalSeconds)
        self.awayAfterSeconds = max(0, awayAfterSeconds)
        ledger = LockedValue(HomeAssistantLedger(
            discovery: discovery, attributesIntervalSeconds: attributesIntervalSeconds,
            awayAfterSeconds: awayAfterSeconds, clearDelaySeconds: clearDelaySeconds, removing: removing,
            start: clock.now()))
    }

    /// The targets announced in this run, sorted.
    public var announced: [String] { ledger.withLock { $0.announced.sorted() } }

    /// The targets declared `not_home`, sorted.
    public var away: [String] { ledger.withLock { l in l.presence.filter(\.value.away).keys.sorted() } }

    /// Removed targets whose retained messages are not all cleared yet, sorted.
    public var clearing: [String] { ledger.withLock { $0.clearing.keys.sorted() } }

    /// The counters.
    public var statistics: Statistics { ledger.withLock { $0.statistics } }

    /// Announces new targets and publishes what changed.
    public func onLocationsUpdated(_ locations: [Location], source: LocationSource) {
        let connection = client.statistics.connects, now = clock.now()
        ledger.withLock { $0.update(locations, now: now, connection: connection, send: send) }
    }

    /// Nothing: a target the source forgets keeps its entities, and goes `not_home` by the away timeout
    /// (`sweep()`), which does not depend on the source's deletion time.
    public func onLocationsDeleted(_ targetIDs: [String], source: LocationSource) {}

    /// Announces the solver's device as soon as the source reports (and goes on with removals).
    public func onStatusChanged(_ status: LocationSourceStatus, source: LocationSource) {
        let connection = client.statistics.connects, now = clock.now()
        _ = ledger.withLock { $0.begin(now: now, connection: connection, send: send) }
    }

    /// Takes the targets earlier runs announced (`HomeAssistantRoster.read`): those that lost their name are
    /// removed, the others expected (`not_home` unless heard within the away timeout from now).
    public func adopt(_ earlier: [String: String]) {
        let now = clock.now()
        ledger.withLock { $0.adopt(earlier, now: now) }
    }

    /// Declares `not_home` the targets not heard for the away timeout and finishes removals that are due; the
    /// gateway calls it every second of its clock.
    public func sweep() {
        let connection = client.statistics.connects, now = clock.now()
        ledger.withLock { $0.sweep(now: now, connection: connection, send: send) }
    }

    /// Publishes by `discovery` from the next event on (names or rooms saved while running): every announced
    /// target's configs and states are sent again then (`HomeAssistantLedger.rediscover`).
    public func use(discovery: HomeAssistantDiscovery) {
        ledger.withLock { $0.rediscover(discovery) }
    }

    /// Hands a message to the client; true when it took it.
    private func send(_ message: MQTTMessage) -> Bool {
        client.publish(message) == .sent
    }
}
