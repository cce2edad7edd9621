import BeaconLocation
import BlueDotCore
import Formats
import Foundation
import LocationBus
import LocationDisplay
import Logging
import Positioning
import Testing

@testable import HomeAssistant
@testable import Site

/// Home Assistant MQTT discovery through a real mosquitto, seen as Home Assistant sees it (a subscriber to the
/// discovery prefix, and fresh subscribers finding what is retained): a real `bluedot run` solver (ESPresense nodes of
/// the companion's example house) announces a device that reads `home`, its room sensor follows the device from the
/// family room to the dining room, its availability goes offline when the solver is killed (the last will) and the
/// same ids come back with a new solver, with no `not_home` in between; in process, a `LocationSource` driven by hand
/// announces only allowed targets, keeps a forgotten one's entities and declares it `not_home` by the away timeout on
/// a manual clock, removes a target on request (configs first, states later), and announces again after the broker
/// restarts without its retained messages. `Tools/ha-check` runs a real Home Assistant against a solver.
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
        #expect(venue.origin != nil, "the companion's gps section: fixes carry latitude and longitude")
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
        let room = discovery.roomTopic(Self.target), state = discovery.stateTopic(Self.target)
        #expect(await eventually(seconds: 5) { seen.last(room) == "Dining" }, "rooms: \(seen.all(room))")
        let rooms = seen.all(room)
        #expect(rooms.contains("Family") && rooms.firstIndex(of: "Family")! < rooms.lastIndex(of: "Dining")!)
        #expect(zip(rooms, rooms.dropFirst()).allSatisfy { $0 != $1 }, "a state goes out only when it changes")
        #expect(seen.all(state) == ["home"], "located from the first fix on: home, once")
        let attributes = try #require(seen.last(discovery.attributesTopic(Self.target)))
        let fix = try Self.object(attributes)
        #expect(fix["room"] as? String == "dining" && fix["floor"] as? Int == 0 && fix["last_known"] as? Bool == false,
                "\(attributes)")
        #expect(fix["x_m"] is Double && fix["accuracy_m"] is Double && fix["room_probability"] is Double)
        #expect(fix["receivers"] as? Int ?? 0 >= 3)
        #expect(fix["latitude"] is Double && fix["longitude"] is Double && fix["gps_accuracy"] is Double)
        #expect(seen.all(discovery.attributesTopic(Self.target)).count >= 10, "attributes flow with the fixes")

        // What Home Assistant finds when it (re)starts: the five configs, retained.
        let retained = try broker.subscribe("homeassistant/#", count: 5, timeoutSeconds: 3)
        #expect(Set(retained.map { String($0.prefix { $0 != " " }) })
            == Set([discovery.solverConfigTopic] + discovery.configTopics(of: Self.target)), "\(retained)")
        let config = try #require(seen.last(trackerConfig))
        let tracker = try Self.object(config)
        #expect(tracker["unique_id"] as? String == discovery.objectID(of: Self.target))
        #expect((tracker["device"] as? [String: Any])?["name"] as? String == "Keys")
        #expect(tracker["default_entity_id"] as? String == "device_tracker.keys", "the entity id from the name")
        let sensor = try Self.object(try #require(seen.last(sensorConfig)))
        #expect(sensor["unique_id"] as? String == discovery.sensorObjectID(of: Self.target))
        let options = try #require(sensor["options"] as? [String])
        #expect(options.contains("Family") && options.contains("Dining") && options.last == "none", "\(options)")
        let solverDevice = try Self.object(try #require(seen.last(discovery.solverConfigTopic)))
        #expect(solverDevice["state_topic"] as? String == "bluedot/house/status")
        #expect(seen.last("bluedot/house/status") == "online")

        // Killed: the broker publishes the solver's last will; Home Assistant marks the entities unavailable.
        solver.kill()
        #expect(await eventually(seconds: 10) { seen.last("bluedot/house/status") == "offline" })
        // A new solver: online again, the same configs (unique ids included) announced again.
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
        #expect(seen.all(state) == ["home", "home"], "the new solver's first fix says home again: never not_home")
        solver.signal(SIGTERM)
        _ = await solver.wait(timeout: .seconds(10))
    }

    /// The solver's client, as `bluedot run` makes it: retained `online` at every connect, `offline` as its will.
    static func solverClient(_ broker: MosquittoBroker, topics: SiteTopics) throws -> MQTTClient {
        var options = try MQTTOptions(url: broker.url)
        options.clientID = "solver-\(topics.site)"
        options.reconnectFirstDelaySeconds = 1
        options.reconnectLargestDelaySeconds = 2
        return try MQTTClient(
            options: options, will: MQTTMessage(topic: topics.solverStatus, text: "offline", qos: 1, retain: true),
            birth: [MQTTMessage(topic: topics.solverStatus, text: "online", qos: 1, retain: true)],
            logger: Logger(label: "test.ha"))
    }

    static func fix(_ target: String, t: Double, room: String?) -> Location {
        Location(timestamp: t, targetID: target, x: 1, y: 2, floor: 0, horizontalAccuracyMeters: 1, room: room,
            roomProbability: 0.9)
    }

    /// What a fresh subscriber finds retained under `filter` (it waits `seconds` for more), as `topic payload` lines.
    static func retained(_ broker: MosquittoBroker, _ filter: String, seconds: Int = 1) throws -> [String] {
        try broker.subscribe(filter, count: 100, timeoutSeconds: seconds).sorted()
    }

    /// Entities last: a target the source forgets keeps its retained configs and goes `not_home` by the away
    /// timeout of the publisher's clock; a target removed on request loses its configs at once and its states
    /// `clearDelaySeconds` later.
    @Test func aForgottenTargetStaysAndARemovedOneIsCleared() async throws {
        let broker = try await MosquittoBroker()
        defer { broker.kill() }
        let topics = try #require(SiteTopics(site: "flat"))
        let client = try Self.solverClient(broker, topics: topics)
        try client.start()
        defer { client.stop() }
        #expect(await eventually { client.isConnected })
        let discovery = HomeAssistantDiscovery(topics: topics, allow: [IDPattern("tag-*")!], roomNames: ["hall": "Hall"])
        let clock = ManualClock(start: 1000)
        let publisher = HomeAssistantPublisher(client: client, discovery: discovery, clock: clock,
                                               awayAfterSeconds: 60)
        let source = LocationSource(id: "flat", clock: clock)
        source.addObserver(publisher)
        defer { source.removeObserver(publisher) }

        source.update([Self.fix("tag-1", t: 10, room: "hall"), Self.fix("phone", t: 10, room: "hall")])
        let configs = [discovery.solverConfigTopic] + discovery.configTopics(of: "tag-1")
        #expect(await eventually {
            (try? Self.retained(broker, "homeassistant/+/+/config"))?.map { String($0.prefix { $0 != " " }) }.sorted()
                == configs.sorted()
        }, "the solver and tag-1, not phone (the allow-list)")
        #expect(try Self.retained(broker, "bluedot/flat/ha/+/state") == ["bluedot/flat/ha/tag-1/state home"])
        #expect(publisher.announced == ["tag-1"])

        source.delete(["tag-1"])
        clock.advance(by: 59)
        publisher.sweep()
        #expect(try Self.retained(broker, "bluedot/flat/ha/+/state") == ["bluedot/flat/ha/tag-1/state home"])
        clock.advance(by: 1)
        publisher.sweep()
        #expect(await eventually {
            (try? Self.retained(broker, "bluedot/flat/ha/+/+")) == [
                #"bluedot/flat/ha/tag-1/attributes {"x_m":1.00,"y_m":2.00,"floor":0,"accuracy_m":1.00,"room":null,"receivers":0,"last_known":true}"#,
                "bluedot/flat/ha/tag-1/room none", "bluedot/flat/ha/tag-1/state not_home"]
        })
        #expect(try Self.retained(broker, "homeassistant/+/+/config").count == 5, "the entities stay")
        #expect(publisher.away == ["tag-1"] && publisher.statistics.cleared == 0)
        // What the next run reads back: the target and the device name it was announced with.
        let roster = await HomeAssistantRoster.read(
            options: client.options, discovery: discovery, clock: SystemClock(), logger: Logger(label: "test.ha"),
            quietSeconds: 0.5)
        #expect(roster == ["tag-1": "tag-1"])
        source.removeObserver(publisher)

        // The next run removes tag-1: the configs go at once, the states and attributes 3 s of its clock later.
        let removing = HomeAssistantPublisher(client: client, discovery: discovery, clock: clock, removing: ["tag-1"])
        source.addObserver(removing)
        defer { source.removeObserver(removing) }
        #expect(await eventually {
            (try? Self.retained(broker, "homeassistant/#"))?.map { String($0.prefix { $0 != " " }) }
                == [discovery.solverConfigTopic]
        })
        #expect(try Self.retained(broker, "bluedot/flat/ha/#").count == 3, "states wait for Home Assistant to let go")
        clock.advance(by: 3)
        removing.sweep()
        #expect(await eventually { (try? Self.retained(broker, "bluedot/flat/ha/#")) == [] })
        #expect(removing.clearing.isEmpty && removing.statistics.cleared == 7)
    }

    /// The broker restarts without its retained messages: after the client reconnects, the next fix announces the
    /// solver and the target again, with their states.
    @Test func aReconnectAnnouncesEverythingAgain() async throws {
        let broker = try await MosquittoBroker()
        defer { broker.kill() }
        let topics = try #require(SiteTopics(site: "lab"))
        let client = try Self.solverClient(broker, topics: topics)
        try client.start()
        defer { client.stop() }
        #expect(await eventually { client.isConnected })
        let discovery = HomeAssistantDiscovery(topics: topics)
        let publisher = HomeAssistantPublisher(client: client, discovery: discovery, clock: SystemClock())
        let source = LocationSource(id: "lab", clock: SystemClock())
        source.addObserver(publisher)
        defer { source.removeObserver(publisher) }

        source.update([Self.fix("tag-1", t: 10, room: nil)])
        #expect(await eventually { (try? Self.retained(broker, "homeassistant/#"))?.count == 5 })
        try await broker.restart()
        #expect(await eventually { client.isConnected && client.statistics.connects == 2 })
        #expect(try Self.retained(broker, "homeassistant/#") == [], "no persistence: the broker lost the configs")
        source.update([Self.fix("tag-1", t: 11, room: nil)])
        #expect(await eventually { (try? Self.retained(broker, "homeassistant/#"))?.count == 5 })
        #expect(try Self.retained(broker, "bluedot/lab/ha/+/state") == ["bluedot/lab/ha/tag-1/state home"])
        #expect(try Self.retained(broker, "bluedot/lab/status") == ["bluedot/lab/status online"], "the birth again")
    }

    static func object(_ json: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }
}
