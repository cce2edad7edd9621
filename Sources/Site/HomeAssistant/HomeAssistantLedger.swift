import BlueDotCore

/// What Home Assistant has been told, and what each event calls for: the publishing rules of
/// `HomeAssistantPublisher` as a pure value (sending is a closure that says whether the client took the message),
/// so that they are tested without a broker.
///
/// - Configs (retained, QoS 1): the solver's once per connection; a target's two when it is first seen on a
///   connection. A new connection (the broker may have lost its retained messages) announces everything again.
/// - States (retained, QoS 1): when they change, since Home Assistant's recorder keeps every state change.
/// - Attributes (retained, QoS 0): when they change, at most once per `attributesIntervalSeconds` of fix time,
///   except at once when the room, the floor or `lastKnown` changes (a held-back fix is superseded by the next).
/// - Forgetting a target that was announced clears its configs, states and attributes with empty retained messages
///   (QoS 1); what the link refused is kept and sent with the next event.
/// - A message the client refused (link down) is not recorded as told and is sent again with the next fix.
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

    let discovery: HomeAssistantDiscovery
    /// Shortest fix time between two attribute payloads of one target, seconds (0: every fix).
    let attributesIntervalSeconds: Double
    /// Targets whose configs went out on some connection and that were not forgotten since.
    private(set) var announced: Set<String> = []
    /// What was told on the current connection, by target.
    private(set) var told: [String: Told] = [:]
    /// Forgotten targets and the topics still to clear.
    private(set) var clearing: [String: [String]] = [:]
    private(set) var statistics = HomeAssistantPublisher.Statistics()
    /// The connection the told states belong to (the client's connect count).
    private var connection: Int?
    /// Whether the solver's config went out on this connection.
    private var solverAnnounced = false

    /// A ledger with nothing told yet.
    init(discovery: HomeAssistantDiscovery, attributesIntervalSeconds: Double) {
        self.discovery = discovery
        self.attributesIntervalSeconds = max(0, attributesIntervalSeconds)
    }

    /// New fixes, on connection number `connection` (the client's connect count).
    mutating func update(_ locations: [Location], connection: Int, send: Send) {
        guard begin(connection: connection, send: send) else { return }
        for location in locations {
            let target = location.targetID
            guard discovery.announces(target) else {
                statistics.skipped += 1
                continue
            }
            clearing[target] = nil
            if told[target] == nil {
                guard publish(discovery.trackerConfigTopic(target), discovery.trackerConfig(target), send),
                      publish(discovery.sensorConfigTopic(target), discovery.sensorConfig(target), send)
                else { continue }
                statistics.configs += 2
                announced.insert(target)
                told[target] = Told()
            }
            tell(location, send: send)
        }
    }

    /// Forgotten targets: their retained messages are cleared (now, or with a later event if the link is down).
    mutating func forget(_ targets: [String], connection: Int, send: Send) {
        for target in targets where announced.contains(target) {
            announced.remove(target)
            told[target] = nil
            clearing[target] = discovery.retainedTopics(of: target)
        }
        _ = begin(connection: connection, send: send)
    }

    /// Starts an event: a new connection forgets what was told; the solver is announced and pending clears are
    /// sent. False when the link refused (nothing more to try now).
    mutating func begin(connection: Int, send: Send) -> Bool {
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
            while let topic = clearing[target]?.first {
                guard publish(topic, "", send) else { return false }
                statistics.cleared += 1
                clearing[target]?.removeFirst()
            }
            clearing[target] = nil
        }
        return true
    }

    /// Sends what changed in an announced target's fix: attributes first, then the states.
    private mutating func tell(_ location: Location, send: Send) {
        let target = location.targetID
        guard var t = told[target] else { return }
        defer { told[target] = t }
        let attributes = discovery.attributes(location)
        let mark = Mark(room: location.room, floor: location.floor, lastKnown: location.lastKnown)
        if attributes != t.attributes {
            let elapsed = location.timestamp - t.attributesTime
            if mark != t.attributesMark || elapsed >= attributesIntervalSeconds || elapsed < 0 {
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
        let trackerState = discovery.trackerState(location)
        if trackerState != t.trackerState, publish(discovery.stateTopic(target), trackerState, send) {
            statistics.states += 1
            t.trackerState = trackerState
        }
        let roomState = discovery.roomState(location)
        if roomState != t.roomState, publish(discovery.roomTopic(target), roomState, send) {
            statistics.states += 1
            t.roomState = roomState
        }
    }

    /// Hands one retained message to `send`; counts a refusal.
    private mutating func publish(_ topic: String, _ text: String, _ send: Send, qos: Int = 1) -> Bool {
        let sent = send(MQTTMessage(topic: topic, text: text, qos: qos, retain: true))
        if !sent { statistics.refused += 1 }
        return sent
    }
}
