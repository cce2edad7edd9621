import BlueDotCore
import Foundation
import Formats
import LocationDisplay
import Logging
import Positioning
import Testing

@testable import Site

/// Home Assistant MQTT discovery through a real mosquitto: a real `bluedot run` solver (ESPresense nodes of the
/// companion's example house) announces a device, its room follows the device from the family room to the dining
/// room, its availability goes offline when the solver is killed (the last will) and the same ids come back
/// with a new solver; a forgotten target's retained configs are cleared.
@Suite(.serialized, .enabled(if: MosquittoBroker.available, "mosquitto is not installed"))
struct HomeAssistantBrokerTests {
    static let device = "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-7"
    static let target = "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7"

    /// Every message seen per topic, in order.
    final class Seen: Sendable {
        let messages = LockedValue<[String: [String]]>([:])
        func add(_ m: MQTTMessage) { messages.withLock { $0[m.topic, default: []].append(String(decoding: m.payload, as: UTF8.self)) } }
        func all(_ topic: String) -> [String] { messages.withLock { $0[topic] ?? [] } }
        func last(_ topic: String) -> String? { all(topic).last }
    }

    static func watcher(_ broker: MosquittoBroker, id: String, topics: [String]) throws -> (MQTTClient, Seen, Task<Void, Never>) {
        var options = try MQTTOptions(url: broker.url)
        options.clientID = id
        let client = try MQTTClient(options: options, logger: Logger(label: "test.ha"))
        for topic in topics { try client.subscribe(topic) }
        try client.start()
        let seen = Seen()
        let task = Task.detached {
            for await case .message(let m) in client.events { seen.add(m) }
        }
        return (client, seen, task)
    }

    /// The ground-floor nodes' reports of the device standing at (x, y).
    static func reports(_ venue: Venue, x: Double, y: Double) -> [MQTTMessage] {
        ESPresenseSiteTests.reports(device: device, nodes: venue.anchors.filter { $0.floor == 0 }, venue: venue, x: x, y: y)
    }

    @Test func aSolversTargetsAppearInHomeAssistantAndFollowTheirRooms() async throws {
        let scratch = try IntegrationEnvironment.scratchDirectory()
        let venuePath = scratch.appendingPathComponent("house.venue.json").path
        let imported = try ChildProcess.run(IntegrationEnvironment.bluedot,
                                            ["venue", "import", "--espresense", ESPresenseSiteTests.config, "-o", venuePath],
                                            timeout: .seconds(30))
        #expect(imported.status == 0, "\(imported.standardError)")
        let venue = try VenueLoader.load(path: venuePath)
        let broker = try await MosquittoBroker()
        defer { broker.kill() }
        let arguments = [
            "run", "--mqtt", broker.url, "--site", "house", "--venue", venuePath, "--mode", "tag", "--espresense",
            "--listen", "127.0.0.1:0", "--ha-names", "\(Self.target)=Keys", "--history", "off",
        ]
        var solver = try ChildProcess(IntegrationEnvironment.bluedot, arguments)
        defer { solver.kill() }
        #expect(await solver.waitForOutput(timeout: .seconds(30)) { _ in solver.standardError.contains("listening") },
                "\(solver.standardError.suffix(2000))")

        let discovery = HomeAssistantDiscovery(topics: try #require(SiteTopics(site: "house")))
        let trackerConfig = discovery.trackerConfigTopic(Self.target)
        let sensorConfig = discovery.sensorConfigTopic(Self.target)
        let (watch, seen, watching) = try Self.watcher(
            broker, id: "home-assistant", topics: ["homeassistant/#", "bluedot/house/ha/#", "bluedot/house/status"])
        defer { watching.cancel(); watch.stop() }
        let (nodes, _, _) = try Self.watcher(broker, id: "espresense-nodes", topics: [])
        defer { nodes.stop() }
        #expect(await eventually { watch.isConnected && nodes.isConnected })

        // The device stands in the family room (3, 2.7), then walks to the dining room (14.4, 4.75).
        for (x, y, rounds) in [(3.0, 2.7, 40), (14.4, 4.75, 60)] {
            for _ in 0..<rounds {
                for message in Self.reports(venue, x: x, y: y) { _ = nodes.publish(message) }
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        let state = discovery.stateTopic(Self.target)
        #expect(await eventually(seconds: 5) { seen.last(state) == "Dining" }, "states: \(seen.all(state))")
        let states = seen.all(state)
        #expect(states.contains("Family") && states.firstIndex(of: "Family")! < states.lastIndex(of: "Dining")!)
        #expect(seen.last(discovery.roomTopic(Self.target)) == "Dining")
        let attributes = try #require(seen.last(discovery.attributesTopic(Self.target)))
        #expect(attributes.contains(#""room":"dining""#) && attributes.contains(#""floor":0"#), "\(attributes)")
        let config = try #require(seen.last(trackerConfig))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(config.utf8)) as? [String: Any])
        #expect(object["unique_id"] as? String == discovery.objectID(of: Self.target))
        #expect((object["device"] as? [String: Any])?["name"] as? String == "Keys")
        #expect(seen.last(sensorConfig)?.contains(#""unique_id":"\#(discovery.objectID(of: Self.target))_room""#) == true)
        #expect(seen.last("bluedot/house/status") == "online")

        // Killed: the broker publishes the solver's last will, and Home Assistant marks the entities unavailable.
        solver.kill()
        #expect(await eventually(seconds: 10) { seen.last("bluedot/house/status") == "offline" })
        // A new solver: online again, the same ids announced again.
        let before = seen.all(trackerConfig).count
        solver = try ChildProcess(IntegrationEnvironment.bluedot, arguments)
        #expect(await solver.waitForOutput(timeout: .seconds(30)) { _ in solver.standardError.contains("listening") })
        for _ in 0..<15 {
            for message in Self.reports(venue, x: 14.4, y: 4.75) { _ = nodes.publish(message) }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(await eventually(seconds: 5) { seen.all(trackerConfig).count > before })
        #expect(seen.last(trackerConfig) == config, "the same config, unique id included, after a restart")
        #expect(seen.last("bluedot/house/status") == "online")
        solver.signal(SIGTERM)
        _ = await solver.wait(timeout: .seconds(10))
    }

    @Test func aForgottenTargetsConfigsAreCleared() async throws {
        let broker = try await MosquittoBroker()
        defer { broker.kill() }
        let topics = try #require(SiteTopics(site: "flat"))
        var options = try MQTTOptions(url: broker.url)
        options.clientID = "solver-flat"
        let client = try MQTTClient(options: options, logger: Logger(label: "test.ha"))
        try client.start()
        defer { client.stop() }
        #expect(await eventually { client.isConnected })
        let discovery = HomeAssistantDiscovery(topics: topics, allow: [IDPattern("tag-*")!])
        let publisher = HomeAssistantPublisher(client: client, discovery: discovery)
        let source = LocationSource(id: "flat", clock: SystemClock())
        let location = { (target: String) in
            Location(x: 1, y: 2, floor: 0, timestamp: 10, horizontalAccuracyMeters: 1, targetID: target, room: "hall",
                     roomProbability: 0.9)
        }
        publisher.onLocationsUpdated([location("tag-1"), location("phone")], source: source)
        #expect(publisher.announced == ["tag-1"], "the allow-list leaves phone out")
        let config = discovery.trackerConfigTopic("tag-1")
        #expect(await eventually { (try? broker.subscribe(config, count: 1, timeoutSeconds: 1))?.count == 1 })
        #expect(try broker.subscribe(discovery.stateTopic("tag-1"), count: 1) == ["\(discovery.stateTopic("tag-1")) hall"])
        publisher.onLocationsDeleted(["tag-1"], source: source)
        #expect(publisher.announced.isEmpty)
        // A subscriber coming later gets no retained config, state or attributes of the forgotten target.
        #expect(await eventually { (try? broker.subscribe(config, count: 1, timeoutSeconds: 1)) == [] })
        #expect(try broker.subscribe(discovery.sensorConfigTopic("tag-1"), count: 1, timeoutSeconds: 1) == [])
        #expect(try broker.subscribe(discovery.stateTopic("tag-1"), count: 1, timeoutSeconds: 1) == [])
    }
}
