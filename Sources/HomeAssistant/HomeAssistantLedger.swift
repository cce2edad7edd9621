import BlueDotCore
import Site

/// What Home Assistant has been told, and what each event calls for: the publishing rules of
/// `HomeAssistantPublisher` as a pure value (sending is a closure that says whether the client took the message,
/// the time is the caller's clock reading), so that they are tested without a broker or a clock.
///
/// - Configs (retained, QoS 1): the solver's once per connection; a target's four when it is first seen on a
///   connection. A new connection (the broker may have lost its retained messages) announces everything again.
/// - Presence: the locations' own `presence`, which the location source decides (`PresenceRule`, from where the
///   target fell silent): `not_home` makes the tracker `not_home`, its room `none`, its attributes without
///   coordinates, and the target keeps its entities. For a source that does not decide presence (locations without
///   it), a fix makes the tracker `home` and a target with no current fix (`lastKnown` fixes do not count) for
///   `awayAfterSeconds` of clock time goes `not_home`. Before a target's first fix after a start nothing is said
///   about it, so the retained state of the last run holds (no `not_home` across a restart); a target with a name
///   (`discovery.names`) that is not heard within `awayAfterSeconds` of the start is announced `not_home`, so a tag
///   that left while no solver ran does not stay home.
/// - States (retained, QoS 1): when they change, since Home Assistant's recorder keeps every state change.
/// - Attributes (retained, QoS 0): when they change, at most once per `attributesIntervalSeconds` of fix time,
///   except at once when the room, the floor or `lastKnown` changes (a held-back fix is superseded by the next).
/// - Removal, only on an explicit action: the targets given as `removing`, and those an earlier run announced with
///   a name that they no longer have (`adopt`). Their configs are cleared with empty retained messages, then,
///   `clearDelaySeconds` later, their states and attributes (Home Assistant has let go of them by then: an empty
///   payload reaching a live entity is a warning in its log). They are not announced again in this run.
/// - Targets an earlier run announced (`adopt`, from `HomeAssistantRoster`) are expected like named ones.
/// - A message the client refused (link down) is not recorded as told and is sent again with a later event.
struct HomeAssistantLedger: Sendable {
    /// Sends a message; true when the client took it.
    typealias Send = (MQTTMessage) -> Bool

    /// What one target's entities have been told on this connection.
    struct Told: Sendable, Hashable {
        var trackerState: String?
        var roomState: String?
        var attributes: String?
        /// Fix time of the attributes last sent.
        var attributesTime = -Double.infinity
        /// Room, floor and `lastKnown` of the attributes last sent: a change is sent at once.
        var attributesMark: Mark?
    }

    /// The parts of a fix whose change is worth telling at once.
    struct Mark: Sendable, Hashable {
        var room: String?
        var floor: Int?
        var lastKnown: Bool
    }

    /// Where a target is, across connections.
    struct Presence: Sendable, Hashable {
        /// Clock time of its last current fix (or of the start, for a named target not heard yet).
        var heardAt: Double
        /// Its last fix, if any since the start.
        var last: Location?
        /// Whether it has been declared `not_home`.
        var away = false
        /// Whether its locations carry `presence`, which the ledger then follows instead of timing the silence.
        var followsSource = false
    }

    /// A removal under way: the configs first, the states once they are due.
    struct Removal: Sendable, Hashable {
        var configs: [String]
        var states: [String]
        /// Clock time from which the states are cleared (set when the last config went out).
        var statesDue: Double?
    }

    private(set) var discovery: HomeAssistantDiscovery
    /// Shortest fix time between two attribute payloads of one target, seconds (0: every fix).
    let attributesIntervalSeconds: Double
    /// Clock seconds without a current fix after which a target is `not_home`.
    let awayAfterSeconds: Double
    /// Clock seconds between clearing a removed target's configs and its states.
    let clearDelaySeconds: Double
    /// Targets whose configs went out on some connection of this run.
    private(set) var announced: Set<String> = []
    /// What was told on the current connection, by target.
    private(set) var told: [String: Told] = [:]
    /// Presence of every target heard (or named) since the start.
    private(set) var presence: [String: Presence] = [:]
    /// Targets being removed and what is still to clear.
    private(set) var clearing: [String: Removal] = [:]
    /// Targets removed on request: never announced in this run.
    private(set) var removing: Set<String>
    private(set) var statistics = HomeAssistantPublisher.Statistics()
    /// The connection the told states belong to (the client's connect count).
    private var connection: Int?
    /// Whether the solver's config went out on this connection.
    private var solverAnnounced = false

    /// A ledger at clock time `start` with nothing told yet: named targets are expected (`not_home` unless heard
    /// within `awayAfterSeconds`), and the `removing` ones are cleared at the first event.
    init(discovery: HomeAssistantDiscovery, attributesIntervalSeconds: Double, awayAfterSeconds: Double,
         clearDelaySeconds: Double = 3, removing: [String] = [], start: Double) {
        self.discovery = discovery
        self.attributesIntervalSeconds = max(0, attributesIntervalSeconds)
        self.awayAfterSeconds = max(0, awayAfterSeconds)
        self.clearDelaySeconds = max(0, clearDelaySeconds)
        self.removing = []
        for target in removing { remove(target) }
        for target in discovery.names.keys where announces(target) {
            presence[target] = Presence(heardAt: start)
        }
    }

    /// The targets earlier runs announced, with the device names they had (`HomeAssistantRoster`), learnt at clock
    /// time `now`: one that had a name and has none now is removed; every other allowed one not heard yet is
    /// expected (`not_home` unless heard within the away timeout of `now`).
    mutating func adopt(_ earlier: [String: String], now: Double) {
        for (target, name) in earlier.sorted(by: { $0.key < $1.key }) {
            if name != target && discovery.names[target] == nil {
                remove(target)
            } else if announces(target) && presence[target] == nil {
                presence[target] = Presence(heardAt: now)
            }
        }
    }

    /// Starts removing a target: its configs and states are cleared by the next events, and it is never announced
    /// again in this run.
    private mutating func remove(_ target: String) {
        guard SiteTopics.isTopicLevel(target), !removing.contains(target) else { return }
        removing.insert(target)
        presence[target] = nil
        told[target] = nil
        announced.remove(target)
        clearing[target] = Removal(configs: discovery.configTopics(of: target), states: discovery.stateTopics(of: target))
    }

    /// Whether `target` gets entities: allowed by the discovery and not being removed.
    func announces(_ target: String) -> Bool {
        discovery.announces(target) && !removing.contains(target)
    }

    /// New fixes at clock time `now`, on connection number `connection` (the client's connect count).
    mutating func update(_ locations: [Location], now: Double, connection: Int, send: Send) {
        guard begin(now: now, connection: connection, send: send) else { return }
        for location in locations {
            let target = location.targetID
            guard announces(target) else {
                statistics.skipped += 1
                continue
            }
            var p = presence[target] ?? Presence(heardAt: now)
            if let decided = location.presence {
                p.followsSource = true
                if decided == .notHome && !p.away { statistics.away += 1 }
                p.away = decided == .notHome
                if !location.lastKnown { p.heardAt = now }
            } else if !location.lastKnown {
                p.heardAt = now
                p.away = false
            }
            p.last = location
            presence[target] = p
            guard announce(target, send: send) else { continue }
            if p.away {
                tellAway(target, last: location, send: send)
                continue
            }
            tell(location, away: false, send: send)
        }
    }

    /// The clock reached `now`: targets not heard for the away timeout go `not_home` (again on a new connection),
    /// and removals whose states are due are finished.
    mutating func sweep(now: Double, connection: Int, send: Send) {
        guard begin(now: now, connection: connection, send: send) else { return }
        for target in presence.keys.sorted() {
            guard var p = presence[target] else { continue }
            if !p.away && !p.followsSource && now - p.heardAt >= awayAfterSeconds {
                p.away = true
                presence[target] = p
                statistics.away += 1
            }
            guard p.away, told[target]?.trackerState != HomeAssistantDiscovery.notHome,
                  announce(target, send: send) else { continue }
            tellAway(target, last: p.last, send: send)
        }
    }

    /// Takes new names or rooms (a venue or registry saved while running): everything is told again with the next
    /// event, as on a new connection, so the configs carry the new room options and names.
    mutating func rediscover(_ discovery: HomeAssistantDiscovery) {
        self.discovery = discovery
        told.removeAll()
        solverAnnounced = false
    }

    /// Starts an event: a new connection forgets what was told; the solver is announced and removals go on. False
    /// when the link refused (nothing more to try now).
    mutating func begin(now: Double, connection: Int, send: Send) -> Bool {
        if self.connection != connection {
            self.connection = connection
            told.removeAll()
            solverAnnounced = false
        }
        if !solverAnnounced {
            guard publish(discovery.solverConfigTopic, discovery.solverConfig, send) else { return false }
            statistics.configs += 1
            solverAnnounced = true
        }
        for target in clearing.keys.sorted() {
            guard var removal = clearing[target] else { continue }
            defer { clearing[target] = removal.configs.isEmpty && removal.states.isEmpty ? nil : removal }
            while let topic = removal.configs.first {
                guard publish(topic, "", send) else { return false }
                statistics.cleared += 1
                removal.configs.removeFirst()
            }
            let due = removal.statesDue ?? now + clearDelaySeconds
            removal.statesDue = due
            guard now >= due else { continue }
            while let topic = removal.states.first {
                guard publish(topic, "", send) else { return false }
                statistics.cleared += 1
                removal.states.removeFirst()
            }
        }
        return true
    }

    /// Sends a target's configs if this connection has not had them; false when the link refused.
    private mutating func announce(_ target: String, send: Send) -> Bool {
        guard told[target] == nil else { return true }
        let configs = [(discovery.trackerConfigTopic(target), discovery.trackerConfig(target)),
                       (discovery.sensorConfigTopic(target), discovery.sensorConfig(target))]
            + HomeAssistantDiscovery.Measurement.allCases.map {
                (discovery.measurementConfigTopic(target, $0), discovery.measurementConfig(target, $0))
            }
        for (topic, config) in configs {
            guard publish(topic, config, send) else { return false }
            statistics.configs += 1
        }
        announced.insert(target)
        told[target] = Told()
        return true
    }

    /// Sends what changed in an announced target's fix: attributes first, then the states.
    private mutating func tell(_ location: Location, away: Bool, send: Send) {
        let target = location.targetID
        guard var t = told[target] else { return }
        defer { told[target] = t }
        let attributes = discovery.attributes(location, away: away)
        let mark = Mark(room: away ? nil : location.room, floor: location.floor, lastKnown: away || location.lastKnown)
        if attributes != t.attributes {
            let elapsed = location.timestamp - t.attributesTime
            if away || mark != t.attributesMark || elapsed >= attributesIntervalSeconds || elapsed < 0 {
                if publish(discovery.attributesTopic(target), attributes, send, qos: 0) {
                    statistics.attributes += 1
                    t.attributes = attributes
                    t.attributesTime = location.timestamp
                    t.attributesMark = mark
                }
            } else {
                statistics.attributesHeldBack += 1
            }
        }
        let trackerState = away ? HomeAssistantDiscovery.notHome : HomeAssistantDiscovery.home
        if trackerState != t.trackerState, publish(discovery.stateTopic(target), trackerState, send) {
            statistics.states += 1
            t.trackerState = trackerState
        }
        let roomState = away ? HomeAssistantDiscovery.noRoom : discovery.roomState(location)
        if roomState != t.roomState, publish(discovery.roomTopic(target), roomState, send) {
            statistics.states += 1
            t.roomState = roomState
        }
    }

    /// Tells an announced target's entities that it is away: its last fix without coordinates (when there is
    /// one), `not_home`, room `none`.
    private mutating func tellAway(_ target: String, last: Location?, send: Send) {
        if let last {
            tell(last, away: true, send: send)
            return
        }
        guard var t = told[target] else { return }
        defer { told[target] = t }
        if t.trackerState != HomeAssistantDiscovery.notHome,
           publish(discovery.stateTopic(target), HomeAssistantDiscovery.notHome, send) {
            statistics.states += 1
            t.trackerState = HomeAssistantDiscovery.notHome
        }
        if t.roomState != HomeAssistantDiscovery.noRoom,
           publish(discovery.roomTopic(target), HomeAssistantDiscovery.noRoom, send) {
            statistics.states += 1
            t.roomState = HomeAssistantDiscovery.noRoom
        }
    }

    /// Hands one retained message to `send`; counts a refusal.
    private mutating func publish(_ topic: String, _ text: String, _ send: Send, qos: Int = 1) -> Bool {
        let sent = send(MQTTMessage(topic: topic, text: text, qos: qos, retain: true))
        if !sent { statistics.refused += 1 }
        return sent
    }
}
