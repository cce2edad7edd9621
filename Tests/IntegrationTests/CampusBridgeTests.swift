import BlueDotCore
import Formats
import HomeAssistant
import Foundation
import Logging
import Positioning
import Testing

@testable import Site

/// Many buildings, as docs/site.md ("Many buildings") sets them up: each building's receivers and solver on the
/// building's own mosquitto, bridged by mosquitto's own bridge to a campus broker with only what the campus needs:
/// the solver's locations, status and venue. Real brokers, a real solver process; the receivers' batches are
/// published as a receiver would (four receivers around a standing tag).
@Suite(.serialized, .enabled(if: MosquittoBroker.available, "mosquitto is not installed"))
struct CampusBridgeTests {
    static let venue = Venue(
        name: "west wing", anchors: [
            Anchor(id: "rx-1", x: 0, y: 0, z: 2.5), Anchor(id: "rx-2", x: 10, y: 0, z: 2.5),
            Anchor(id: "rx-3", x: 10, y: 8, z: 2.5), Anchor(id: "rx-4", x: 0, y: 8, z: 2.5),
        ])

    /// The building's bridge to the campus: the solver's output out, nothing of the receivers'.
    static func bridge(to campus: MosquittoBroker, site: String) -> String {
        """
        connection campus-\(site)
        address 127.0.0.1:\(campus.port)
        cleansession true
        restart_timeout 1 2
        topic bluedot/\(site)/locations/# out 1
        topic bluedot/\(site)/status out 1
        topic bluedot/\(site)/venue out 1
        notifications true
        notification_topic bluedot/\(site)/bridge
        """
    }

    /// Publishes, as a site's four receivers would, batches that hear `target` standing at (`x`, `y`), every 0.25 s
    /// until cancelled.
    static func receivers(site: String, broker: MosquittoBroker, target: String, x: Double, y: Double) throws -> Task<Void, Never> {
        var options = try MQTTOptions(url: broker.url)
        options.clientID = "receivers-\(site)"
        let client = try MQTTClient(options: options, logger: Logger(label: "test.receivers"))
        try client.start()
        return Task {
            defer { client.stop() }
            let model = PathLossModel.uncalibrated
            var sequence = 0
            while !Task.isCancelled {
                let now = SystemClock().now()
                for anchor in venue.anchors {
                    let d = ((anchor.x - x) * (anchor.x - x) + (anchor.y - y) * (anchor.y - y) + 1.3 * 1.3).squareRoot()
                    let batch = SightingBatch(receiver: anchor.id, sequence: sequence, clock: now, sightings: [
                        Observation(t: now, anchor: anchor.id, target: target, rssiDBm: model.rssiDBm(atDistanceMeters: d)),
                    ])
                    _ = client.publish(MQTTMessage(topic: "bluedot/\(site)/sightings/\(anchor.id)",
                                                   payload: batch.encoded(), qos: 1))
                }
                sequence += 1
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
    }

    /// A building's solver on `broker`.
    static func solver(site: String, broker: MosquittoBroker, venuePath: String) throws -> ChildProcess {
        try ChildProcess(IntegrationEnvironment.bluedot, [
            "run", "--mqtt", broker.url, "--site", site, "--venue", venuePath, "--mode", "tag",
            "--listen", "127.0.0.1:0", "--history", "off", "--log-level", "info",
        ])
    }

    /// The JSON a campus view answers at `path`.
    static func get(_ base: String, _ path: String) throws -> Any? {
        try JSONSerialization.jsonObject(with: Data(ChildProcess.get(base + path).utf8))
    }

    /// Two buildings (west, east), each a mosquitto bridged to the campus mosquitto with a solver beside it, and
    /// one campus view (`bluedot run --mqtt <campus> --sites +`) that solves nothing: both buildings' targets with
    /// their site, both venues, one history; the west bridge dropped (its broker killed) and restored; the east
    /// solver restarted; no fix taken twice.
    @Test func aCampusViewShowsBothBuildingsAndKnowsWhenOneIsCutOff() async throws {
        let campus = try await MosquittoBroker()
        let west = try await MosquittoBroker(extraConfiguration: Self.bridge(to: campus, site: "west"))
        let east = try await MosquittoBroker(extraConfiguration: Self.bridge(to: campus, site: "east"))
        let scratch = try IntegrationEnvironment.scratchDirectory()
        var eastVenue = Self.venue
        eastVenue.name = "east wing"
        let westPath = scratch.appendingPathComponent("west.venue.json").path
        let eastPath = scratch.appendingPathComponent("east.venue.json").path
        try VenueWriter.json(Self.venue).write(toFile: westPath, atomically: true, encoding: .utf8)
        try VenueWriter.json(eastVenue).write(toFile: eastPath, atomically: true, encoding: .utf8)
        let westSolver = try Self.solver(site: "west", broker: west, venuePath: westPath)
        defer { westSolver.kill() }
        var eastSolver = try Self.solver(site: "east", broker: east, venuePath: eastPath)
        defer { eastSolver.kill() }
        let view = try ChildProcess(IntegrationEnvironment.bluedot, [
            "run", "--mqtt", campus.url, "--sites", "+", "--site", "campus",
            "--listen", "127.0.0.1:0", "--history", "memory", "--log-level", "info",
        ])
        defer { view.kill() }
        let westReceivers = try Self.receivers(site: "west", broker: west, target: "tag-7", x: 4, y: 3)
        defer { westReceivers.cancel() }
        let eastReceivers = try Self.receivers(site: "east", broker: east, target: "tag-9", x: 7, y: 5)
        defer { eastReceivers.cancel() }
        let found = await view.listeningBase(timeout: .seconds(30))
        let base = try #require(found, "\(view.standardError.suffix(2000))")

        func locations() -> [String: [String: Any]] {
            let list = (try? Self.get(base, "api/locations")) as? [[String: Any]] ?? []
            return Dictionary(list.map { ($0["target"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        }
        func sites() -> [String: [String: Any]] {
            let list = ((try? Self.get(base, "api/sites")) as? [String: Any])?["sites"] as? [[String: Any]] ?? []
            return Dictionary(list.map { ($0["site"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        }
        func current(_ target: String, site: String) -> Bool {
            guard let fix = locations()[target] else { return false }
            return fix["site"] as? String == site && fix["lastKnown"] as? Bool == false
        }

        // Both buildings, each target with its site, each site with its venue, solver and bridge.
        #expect(await eventually(seconds: 30) { current("tag-7", site: "west") && current("tag-9", site: "east") },
                "\(locations()) \(view.standardError.suffix(1500))")
        let westFix = locations()["tag-7"] ?? [:]
        #expect(abs((westFix["x"] as? Double ?? 0) - 4) < 2.5 && abs((westFix["y"] as? Double ?? 0) - 3) < 2.5, "\(westFix)")
        #expect(await eventually { sites()["west"]?["venue"] as? String == "west wing" && sites()["east"]?["venue"] as? String == "east wing" })
        #expect(sites()["west"]?["solver"] as? String == "online" && sites()["west"]?["bridge"] as? String == "up")
        #expect(sites()["west"]?["stale"] as? Bool == false, "\(sites())")
        let westVenue = (try? Self.get(base, "api/sites/west/venue")) as? [String: Any]
        #expect(westVenue?["name"] as? String == "west wing")
        #expect(try ChildProcess.get(base + "api/sites/nowhere/venue").contains("no such site"))
        #expect(sites()["campus"] == nil, "the view's own name is not read back as a site")

        // Named `campus`, the view publishes its one answer per target there, with its site, and announces it to
        // Home Assistant: one tracker that follows the target from building to building.
        var watchOptions = try MQTTOptions(url: campus.url)
        watchOptions.clientID = "campus-consumer"
        let consumer = try MQTTClient(options: watchOptions, logger: Logger(label: "test.consumer"))
        try consumer.subscribe("bluedot/campus/#", qos: 1)
        try consumer.subscribe("homeassistant/#", qos: 1)
        let heard = LockedValue<[String: String]>([:])
        let consuming = Task {
            for await case .message(let m) in consumer.events {
                heard.withLock { $0[m.topic] = String(decoding: m.payload, as: UTF8.self) }
            }
        }
        try consumer.start()
        defer {
            consumer.stop()
            consuming.cancel()
        }
        let discovery = HomeAssistantDiscovery(topics: try #require(SiteTopics(site: "campus")))
        #expect(await eventually(seconds: 15) {
            heard.value["bluedot/campus/locations/tag-7"]?.contains(#""site": "west""#) == true
                && heard.value[discovery.trackerConfigTopic("tag-7")] != nil
                && heard.value["bluedot/campus/status"] == "online"
        }, "\(heard.value.keys.sorted())")
        #expect(heard.value["bluedot/campus/locations/tag-9"]?.contains(#""site": "east""#) == true)

        // The west bridge drops (the building's broker dies): the campus says west is stale, and shows tag-7 last
        // known where it was; east goes on.
        west.kill()
        #expect(await eventually(seconds: 15) { sites()["west"]?["stale"] as? Bool == true }, "\(sites())")
        #expect(sites()["west"]?["bridge"] as? String == "down")
        #expect(await eventually { locations()["tag-7"]?["lastKnown"] as? Bool == true }, "\(locations())")
        #expect(current("tag-9", site: "east"))

        // Restored: the bridge reconnects, the solver and receivers come back to it, and tag-7 is current again.
        try await west.start()
        #expect(await eventually(seconds: 30) { sites()["west"]?["stale"] as? Bool == false && current("tag-7", site: "west") },
                "\(sites()) \(locations())")

        // The east solver restarts: the campus sees it offline (stale), then online and current again.
        eastSolver.signal(SIGTERM)
        #expect(await eastSolver.wait(timeout: .seconds(10)))
        #expect(await eventually(seconds: 10) { sites()["east"]?["solver"] as? String == "offline" && sites()["east"]?["stale"] as? Bool == true })
        #expect(await eventually { locations()["tag-9"]?["lastKnown"] as? Bool == true })
        eastSolver = try Self.solver(site: "east", broker: east, venuePath: eastPath)
        #expect(await eventually(seconds: 30) { sites()["east"]?["solver"] as? String == "online" && current("tag-9", site: "east") },
                "\(sites()) \(eastSolver.standardError.suffix(1000))")

        // One history with both sites, and no fix written twice (the retained fixes the bridges sent again after
        // the reconnects are repeats, not new rows).
        let page = (try? Self.get(base, "api/history?target=tag-7&limit=1000")) as? [String: Any]
        let rows = page?["fixes"] as? [[String: Any]] ?? []
        #expect(!rows.isEmpty && rows.allSatisfy { $0["site"] as? String == "west" }, "\(rows.prefix(3))")
        let keys = rows.map { "\($0["t"] ?? "")/\($0["lastKnown"] ?? "")" }
        #expect(Set(keys).count == keys.count, "a row written twice")
        let metrics = try ChildProcess.get(base + "metrics")
        #expect(metrics.contains("bluedot_campus_repeats_total"), "\(metrics.prefix(400))")
    }

    @Test func aBuildingsLocationsStatusAndVenueCrossTheBridgeAndNothingElse() async throws {
        let campus = try await MosquittoBroker()
        let building = try await MosquittoBroker(extraConfiguration: Self.bridge(to: campus, site: "west"))
        let scratch = try IntegrationEnvironment.scratchDirectory()
        let venuePath = scratch.appendingPathComponent("west.venue.json").path
        try VenueWriter.json(Self.venue).write(toFile: venuePath, atomically: true, encoding: .utf8)
        let solver = try ChildProcess(IntegrationEnvironment.bluedot, [
            "run", "--mqtt", building.url, "--site", "west", "--venue", venuePath, "--mode", "tag",
            "--listen", "127.0.0.1:0", "--history", "off", "--log-level", "info",
        ])
        defer { solver.kill() }
        #expect(await solver.listeningBase(timeout: .seconds(30)) != nil, "\(solver.standardError.suffix(2000))")

        // What reaches the campus, from the moment the bridge is up.
        var options = try MQTTOptions(url: campus.url)
        options.clientID = "campus-watcher"
        let watcher = try MQTTClient(options: options, logger: Logger(label: "test.campus"))
        try watcher.subscribe("bluedot/#", qos: 1)
        let seen = LockedValue<[String: String]>([:])
        let topics = LockedValue<Set<String>>([])
        let watching = Task {
            for await event in watcher.events {
                if case .message(let m) = event {
                    seen.withLock { $0[m.topic] = String(decoding: m.payload, as: UTF8.self) }
                    topics.withLock { _ = $0.insert(m.topic) }
                }
            }
        }
        try watcher.start()
        defer {
            watcher.stop()
            watching.cancel()
        }

        // Four receivers hear a tag standing at (4, 3), each batch every 0.25 s for 6 s, on the building's broker.
        var publishOptions = try MQTTOptions(url: building.url)
        publishOptions.clientID = "receivers"
        let receivers = try MQTTClient(options: publishOptions, logger: Logger(label: "test.receivers"))
        try receivers.start()
        defer { receivers.stop() }
        #expect(await eventually { receivers.isConnected })
        let model = PathLossModel.uncalibrated
        var sequence = 0
        let start = SystemClock().now()
        while SystemClock().now() < start + 6 {
            let now = SystemClock().now()
            for anchor in Self.venue.anchors {
                let d = ((anchor.x - 4) * (anchor.x - 4) + (anchor.y - 3) * (anchor.y - 3) + 1.3 * 1.3).squareRoot()
                let batch = SightingBatch(receiver: anchor.id, sequence: sequence, clock: now, sightings: [
                    Observation(t: now, anchor: anchor.id, target: "tag-7", rssiDBm: model.rssiDBm(atDistanceMeters: d)),
                ])
                _ = receivers.publish(MQTTMessage(topic: "bluedot/west/sightings/\(anchor.id)", payload: batch.encoded(),
                                                  qos: 1))
            }
            sequence += 1
            try await Task.sleep(for: .milliseconds(250))
        }

        #expect(await eventually(seconds: 10) { seen.value["bluedot/west/locations/tag-7"] != nil })
        let fix = seen.value["bluedot/west/locations/tag-7"] ?? ""
        #expect(fix.contains(#""target": "tag-7""#) || fix.contains(#""target":"tag-7""#), "\(fix)")
        #expect(seen.value["bluedot/west/status"] == "online")
        #expect(seen.value["bluedot/west/venue"]?.contains(#""name": "west wing""#) == true)
        let crossed = topics.value
        #expect(!crossed.contains { $0.contains("/sightings/") }, "receivers' batches stay in the building: \(crossed)")

        // The solver stopped: its `offline` crosses too, so the campus knows the building is not solved.
        solver.signal(SIGTERM)
        #expect(await solver.wait(timeout: .seconds(10)))
        #expect(await eventually(seconds: 10) { seen.value["bluedot/west/status"] == "offline" })
    }

    /// The whole chain from the radio: in each building a Bumble virtual site (Tools/virtual-world/campus-<site>.json:
    /// three controllers as receivers, one iBeacon tag standing), three `bluedot run --h4-tcp ... --publish`
    /// receivers on the building's mosquitto, and its solver; both bridged to a campus mosquitto, where a campus view
    /// of the two named sites shows each building's tag with its site, where the building's truth has it. Then the
    /// west bridge is dropped (its broker killed) and restored, and the east solver restarted.
    @Test(.enabled(if: IntegrationEnvironment.runWorldTests, "needs the virtual world"))
    func twoBuildingsOfBumbleReceiversReachTheCampusView() async throws {
        let campus = try await MosquittoBroker()
        let scratch = try IntegrationEnvironment.scratchDirectory()
        var processes: [ChildProcess] = []
        defer { for p in processes.reversed() { p.kill() } }
        var truth: [String: (tag: String, x: Double, y: Double)] = [:]
        var brokers: [MosquittoBroker] = []
        var solvers: [String: (process: ChildProcess, venue: String)] = [:]
        for site in ["west", "east"] {
            let broker = try await MosquittoBroker(extraConfiguration: Self.bridge(to: campus, site: site))
            brokers.append(broker)
            let config = IntegrationEnvironment.packageRoot.appendingPathComponent("Tools/virtual-world/campus-\(site).json")
            let venuePath = scratch.appendingPathComponent("\(site).venue.json").path
            let world = try ChildProcess(IntegrationEnvironment.python, [
                SiteProcessTests.siteScript, "--config", config.path, "--host", "127.0.0.1", "--venue", venuePath,
                "--noise", "2", "--seed", "5",
            ])
            processes.append(world)
            let ready = try #require(await world.readyObject(timeout: .seconds(60)),
                                     "site.py (\(site)) did not get ready: \(world.standardError.suffix(2000))")
            let ports = try #require(ready["receivers"] as? [String: [String: Any]])
            let tag = try #require((ready["tags"] as? [String])?.first)
            let file = try JSONSerialization.jsonObject(with: Data(contentsOf: config)) as? [String: Any]
            let point = ((file?["tags"] as? [[String: Any]])?.first?["track"] as? [[String: Any]])?.first
            truth[site] = (tag, point?["x"] as? Double ?? .nan, point?["y"] as? Double ?? .nan)
            for id in ["rx-1", "rx-2", "rx-3"] {
                let port = try #require(ports[id]?["port"] as? Int)
                processes.append(try ChildProcess(IntegrationEnvironment.bluedot, [
                    "run", "--h4-tcp", "127.0.0.1:\(port)", "--publish", broker.url, "--site", site, "--receiver", id,
                    "--log-level", "info",
                ]))
            }
            let solver = try Self.solver(site: site, broker: broker, venuePath: venuePath)
            solvers[site] = (solver, venuePath)
            processes.append(solver)
        }
        let view = try ChildProcess(IntegrationEnvironment.bluedot, [
            "run", "--mqtt", campus.url, "--sites", "west,east", "--listen", "127.0.0.1:0", "--history", "off",
        ])
        processes.append(view)
        let found = await view.listeningBase(timeout: .seconds(30))
        let base = try #require(found, "\(view.standardError.suffix(2000))")
        func located() -> [String: [String: Any]] {
            let list = (try? Self.get(base, "api/locations")) as? [[String: Any]] ?? []
            return Dictionary(list.map { ($0["target"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        }
        let expected = truth
        #expect(await eventually(seconds: 60) {
            let now = located()
            return expected.allSatisfy { site, t in now[t.tag]?["site"] as? String == site && now[t.tag]?["lastKnown"] as? Bool == false }
        }, "\(located()) \(view.standardError.suffix(1500))")
        // Let the filters settle on the standing tags, then compare with the truth.
        try await Task.sleep(for: .seconds(5))
        let now = located()
        for (site, t) in truth {
            let fix = now[t.tag] ?? [:]
            let error = ((number(fix["x"]) - t.x) * (number(fix["x"]) - t.x) + (number(fix["y"]) - t.y) * (number(fix["y"]) - t.y)).squareRoot()
            #expect(fix["site"] as? String == site && error < 3, "\(site): \(fix) against (\(t.x), \(t.y))")
        }

        // The faults, with the whole chain behind them. The west bridge drops with its building's broker: west is
        // stale and its tag last known; the broker back, its receivers and solver reconnect and the tag is current.
        func sites() -> [String: [String: Any]] {
            let list = ((try? Self.get(base, "api/sites")) as? [String: Any])?["sites"] as? [[String: Any]] ?? []
            return Dictionary(list.map { ($0["site"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        }
        func current(_ site: String) -> Bool {
            let fix = located()[expected[site]?.tag ?? ""]
            return fix?["site"] as? String == site && fix?["lastKnown"] as? Bool == false
        }
        let west = brokers[0]
        west.kill()
        #expect(await eventually(seconds: 15) {
            sites()["west"]?["stale"] as? Bool == true && !current("west")
        }, "\(sites()) \(located())")
        #expect(current("east"))
        try await west.start()
        #expect(await eventually(seconds: 60) { sites()["west"]?["stale"] as? Bool == false && current("west") },
                "\(sites()) \(located())")
        // The east solver restarts: offline (stale), then online with its tag current again.
        let east = try #require(solvers["east"])
        east.process.signal(SIGTERM)
        #expect(await east.process.wait(timeout: .seconds(10)))
        #expect(await eventually(seconds: 10) { sites()["east"]?["solver"] as? String == "offline" && !current("east") })
        processes.append(try Self.solver(site: "east", broker: brokers[1], venuePath: east.venue))
        #expect(await eventually(seconds: 60) { sites()["east"]?["solver"] as? String == "online" && current("east") },
                "\(sites()) \(located())")
    }
}
