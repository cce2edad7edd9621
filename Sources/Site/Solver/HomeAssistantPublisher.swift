import BlueDotCore
import LocationDisplay

/// An observer of the solver's `LocationSource` that keeps Home Assistant told (`HomeAssistantDiscovery`): a
/// target's first fix publishes its two discovery configs (retained), every fix its attributes, and a change of room
/// its states (all retained, so Home Assistant has them after its own restart; configs and states at QoS 1, the
/// attributes, which every fix renews, at QoS 0). After the client connects again
/// (the broker may have lost its retained messages) every known target is announced again. A target the source
/// forgets gets empty retained messages on its configs and states: Home Assistant removes its entities. Targets the
/// allow-list leaves out, or whose id cannot be a topic level, are never announced.
public final class HomeAssistantPublisher: LocationSourceObserver, Sendable {
    private struct State {
        var announced: Set<String> = []
        var states: [String: String] = [:]
        var connects = 0
    }

    /// What is published where.
    public let discovery: HomeAssistantDiscovery
    private let client: MQTTClient
    private let state = LockedValue(State())

    /// Creates the publisher over the solver's connection.
    public init(client: MQTTClient, discovery: HomeAssistantDiscovery) {
        self.client = client
        self.discovery = discovery
    }

    /// The targets announced now, sorted.
    public var announced: [String] { state.withLock { $0.announced.sorted() } }

    /// Announces new targets and publishes states and attributes.
    public func onLocationsUpdated(_ locations: [Location], source: LocationSource) {
        let connects = client.statistics.connects
        state.withLock { s in
            if s.connects != connects {
                // A new connection: announce everything again.
                s.connects = connects
                s.announced.removeAll()
                s.states.removeAll()
            }
            for location in locations {
                let target = location.targetID
                guard discovery.announces(target), SiteTopics.isTopicLevel(target) else { continue }
                if !s.announced.contains(target) {
                    guard send(discovery.trackerConfigTopic(target), discovery.trackerConfig(target)),
                          send(discovery.sensorConfigTopic(target), discovery.sensorConfig(target)) else { continue }
                    s.announced.insert(target)
                }
                let tracker = discovery.trackerState(location)
                if s.states[target] != tracker {
                    if send(discovery.stateTopic(target), tracker),
                       send(discovery.roomTopic(target), discovery.roomState(location)) {
                        s.states[target] = tracker
                    }
                }
                send(discovery.attributesTopic(target), discovery.attributes(location), qos: 0)
            }
        }
    }

    /// Clears forgotten targets' configs and states (empty retained messages).
    public func onLocationsDeleted(_ targetIDs: [String], source: LocationSource) {
        state.withLock { s in
            for target in targetIDs where s.announced.contains(target) {
                for topic in [discovery.trackerConfigTopic(target), discovery.sensorConfigTopic(target),
                              discovery.stateTopic(target), discovery.roomTopic(target), discovery.attributesTopic(target)] {
                    send(topic, "")
                }
                s.announced.remove(target)
                s.states[target] = nil
            }
        }
    }

    /// Nothing: availability follows the solver's status topic.
    public func onStatusChanged(_ status: LocationSourceStatus, source: LocationSource) {}

    /// Publishes a retained message (QoS 1 unless said); false when it was not handed to the client.
    @discardableResult
    private func send(_ topic: String, _ text: String, qos: Int = 1) -> Bool {
        client.publish(MQTTMessage(topic: topic, text: text, qos: qos, retain: true)) == .sent
    }
}
