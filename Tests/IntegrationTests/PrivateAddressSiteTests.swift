import BlueDotCore
import Formats
import Foundation
import JSON
import Logging
import Testing

@testable import Site

/// Phones with resolvable private addresses at a site: the Bumble virtual site (Tools/virtual-world/site.py) with
/// two devices of the "private" frame changing their RPA every 3 s, one whose IRK is in the registry and one
/// stranger, heard by four `bluedot run --publish --devices` receivers over H4/TCP, solved by a `bluedot run
/// --mqtt --devices` solver with a history. The registry's device keeps one target and its fixes across the
/// changes; the stranger is in no topic, payload, fix, API answer or history row, only in the receivers' counters.
@Suite(.serialized, .enabled(if: MosquittoBroker.available && IntegrationEnvironment.runWorldTests,
                             "needs mosquitto and the virtual world"))
struct PrivateAddressSiteTests {
    static let aliceIRK = "ec0234a357c8ad05341010a60a397d9b"
    static let strangerIRK = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"

    static let site = """
        {"noise": {"sigma": 0.0}, "seed": 0,
         "defaults": {"measuredPower": -59, "pathLossExponent": 2.0, "intervalMs": 100},
         "receivers": [{"id": "rx-1", "x": 0.0, "y": 0.0, "z": 2.5}, {"id": "rx-2", "x": 10.0, "y": 0.0, "z": 2.5},
                       {"id": "rx-3", "x": 10.0, "y": 8.0, "z": 2.5}, {"id": "rx-4", "x": 0.0, "y": 8.0, "z": 2.5}],
         "tags": [
           {"frame": "private", "irk": "\(aliceIRK)", "rotateSeconds": 3, "z": 1.0,
            "track": [{"t": 0, "x": 2.0, "y": 2.0}, {"t": 10, "x": 8.0, "y": 6.0}, {"t": 20, "x": 2.0, "y": 2.0}],
            "loop": true},
           {"frame": "private", "irk": "\(strangerIRK)", "rotateSeconds": 3, "z": 1.0,
            "track": [{"t": 0, "x": 5.0, "y": 4.0}, {"t": 20, "x": 5.0, "y": 4.0}], "loop": true}
         ]}
        """

    @Test func aPhoneKeepsItsTargetAcrossAddressChangesAndAStrangerLeavesOnlyACount() async throws {
        let scratch = try IntegrationEnvironment.scratchDirectory()
        let sitePath = scratch.appendingPathComponent("rpa.site.json").path
        let venuePath = scratch.appendingPathComponent("rpa.venue.json").path
        let devicesPath = scratch.appendingPathComponent("devices.json").path
        let historyPath = scratch.appendingPathComponent("history.sqlite").path
        try Self.site.write(toFile: sitePath, atomically: true, encoding: .utf8)
        try #"{"devices": [{"id": "alice-phone", "name": "Alice's phone", "irk": "\#(Self.aliceIRK)"}]}"#
            .write(toFile: devicesPath, atomically: true, encoding: .utf8)
        let broker = try await MosquittoBroker()
        defer { broker.kill() }
        let world = try ChildProcess(IntegrationEnvironment.python, [
            PrivateAddressSiteTests.script, "--config", sitePath, "--host", "127.0.0.1", "--venue", venuePath,
        ])
        defer { world.kill() }
        let ready = try #require(await world.readyObject(timeout: .seconds(60)),
                                 "site.py did not get ready: \(world.standardError.suffix(2000))")
        let ports = try #require(ready["receivers"] as? [String: [String: Any]])

        // Everything that crosses the broker, from the start.
        var options = try MQTTOptions(url: "mqtt://127.0.0.1:\(broker.port)")
        options.clientID = "rpa-watcher"
        let watcher = try MQTTClient(options: options, logger: Logger(label: "test.watcher"))
        try watcher.subscribe("#")
        try watcher.start()
        let seen = LockedValue<[(topic: String, payload: String)]>([])
        let watching = Task.detached {
            for await case .message(let m) in watcher.events {
                seen.withLock { $0.append((m.topic, String(decoding: m.payload, as: UTF8.self))) }
            }
        }
        defer { watching.cancel(); watcher.stop() }
        #expect(await eventually(seconds: 10) { watcher.isConnected })

        var receivers: [ChildProcess] = []
        defer { for r in receivers { r.kill() } }
        for id in ["rx-1", "rx-2", "rx-3", "rx-4"] {
            let port = try #require(ports[id]?["port"] as? Int)
            receivers.append(try ChildProcess(IntegrationEnvironment.bluedot, [
                "run", "--h4-tcp", "127.0.0.1:\(port)", "--publish", "mqtt://127.0.0.1:\(broker.port)", "--site", "pa",
                "--receiver", id, "--devices", devicesPath, "--log-level", "info",
            ]))
        }
        let solver = try ChildProcess(IntegrationEnvironment.bluedot, [
            "run", "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--site", "pa", "--venue", venuePath, "--mode", "tag",
            "--devices", devicesPath, "--history", historyPath, "--listen", "127.0.0.1:0", "--log-level", "info",
        ])
        defer { solver.kill() }
        let base = await solver.listeningBase(timeout: .seconds(30)) ?? ""
        #expect(!base.isEmpty, "solver did not listen: \(solver.standardError.suffix(2000))")

        // 15 s: five address changes of each device.
        try await Task.sleep(for: .seconds(15))
        let messages = seen.value
        let fixes = messages.filter { $0.topic.hasPrefix("bluedot/pa/locations/") }
        #expect(Set(fixes.map(\.topic)) == ["bluedot/pa/locations/alice-phone"], "\(Set(fixes.map(\.topic)))")
        let current = fixes.compactMap { try? LocationReader.read(source: MemoryChunkSource(Array($0.payload.utf8)), name: "fix").first }
            .filter { !$0.lastKnown }
        let span = (current.last?.timestamp ?? 0) - (current.first?.timestamp ?? 0)
        #expect(current.count >= 8 && span >= 9, "current fixes of one target across the changes: \(current.count) over \(span) s")

        // The stranger: no target, no published sighting of anything but the registry's device.
        let batches = messages.filter { $0.topic.hasPrefix("bluedot/pa/sightings/") }
        #expect(!batches.isEmpty)
        for batch in batches {
            #expect(!batch.payload.contains("mac:") && !batch.payload.contains("irk:"), "\(batch.payload.prefix(300))")
            #expect(batch.payload.contains("alice-phone"))
        }
        #expect(!messages.contains { $0.payload.contains(Self.strangerIRK) || $0.topic.contains("mac:") })
        let discovery = messages.filter { $0.topic.hasPrefix("homeassistant/") }
        #expect(discovery.contains { $0.payload.contains("Alice's phone") }, "Home Assistant takes the registry's name")
        #expect(!discovery.contains { $0.topic.contains("mac") || $0.topic.contains("irk") })

        // The receivers count strangers and the private addresses they resolved (telemetry, every 10 s).
        let telemetry = messages.filter { $0.topic.hasSuffix("/telemetry") }.map(\.payload)
        let counts = telemetry.compactMap { text -> (strangers: Double, resolved: Double)? in
            guard case .object(let o)? = try? JSONValue.parse(Array(text.utf8)),
                  case .number(let s)? = o["strangers"], case .number(let r)? = o["privateAddressesResolved"] else { return nil }
            return (s, r)
        }
        #expect(counts.contains { $0.strangers > 0 }, "\(telemetry)")
        #expect(counts.contains { $0.resolved >= 3 }, "several addresses of the phone resolved: \(telemetry)")

        // The API and the history know the device only.
        let api = try ChildProcess.get(base + "api/locations")
        #expect(api.contains("\"alice-phone\"") && !api.contains("mac:") && !api.contains("irk:"), "\(api)")
        // The history's database (and its write-ahead log) holds the device's id and no address.
        try await Task.sleep(for: .seconds(2))
        var stored = ""
        for suffix in ["", "-wal"] {
            let data = (try? Data(contentsOf: URL(fileURLWithPath: historyPath + suffix))) ?? Data()
            stored += String(decoding: data, as: UTF8.self)
        }
        #expect(stored.contains("alice-phone") && !stored.contains("mac:") && !stored.contains("irk:"))
    }

    static let script = IntegrationEnvironment.packageRoot.appendingPathComponent("Tools/virtual-world/site.py").path
}
