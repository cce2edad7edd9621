import BlueDotCore
import Formats
import Foundation
import JSON
import Logging
import Positioning
import Testing

@testable import Site

/// An ESPresense user switching solvers: the ESPresense-companion's own example configuration imported with
/// `bluedot venue import --espresense`, then `bluedot run --mqtt ... --espresense` solving a device from node
/// reports published through a real mosquitto, as ESPresense firmware 4.x publishes them.
@Suite(.serialized, .enabled(if: MosquittoBroker.available, "mosquitto is not installed"))
struct ESPresenseSiteTests {
    static let config = IntegrationEnvironment.packageRoot
        .appendingPathComponent("Tests/PositioningTests/Fixtures/espresense-companion-config.example.yaml").path

    /// What ESPresense firmware 4.x publishes for a device standing at (x, y), 1 m up: each node's report with
    /// rssi@1m 6 dB below the venue's model (the device's own reference) and rssi = rssi@1m - 10 n log10(d).
    static func reports(device: String, nodes: [Anchor], venue: Venue, x: Double, y: Double) -> [MQTTMessage] {
        nodes.map { node in
            let model = node.model(default: venue.model)
            let d = max(0.5, ((node.x - x) * (node.x - x) + (node.y - y) * (node.y - y) + (node.z - 1) * (node.z - 1))
                .squareRoot())
            let reference = model.measuredPowerDBm - 6
            let rssi = reference - 10 * model.pathLossExponent * log10(d)
            let payload = String(format: #"{"id":"%@","mac":"c00000000007","rssi@1m":%.0f,"rssi":%.2f,"rxAdj":0,"rssiVar":0.5,"distance":%.2f,"var":0.1,"int":200}"#,
                                 device, reference, rssi, d)
            return MQTTMessage(topic: "espresense/devices/\(device)/\(node.id)", text: payload)
        }
    }

    @Test func aCompanionConfigurationIsImportedAndItsNodesSolveADevice() async throws {
        let scratch = try IntegrationEnvironment.scratchDirectory()
        let venuePath = scratch.appendingPathComponent("house.venue.json").path
        let imported = try ChildProcess.run(IntegrationEnvironment.bluedot,
                                            ["venue", "import", "--espresense", Self.config, "-o", venuePath],
                                            timeout: .seconds(30))
        #expect(imported.status == 0, "\(imported.standardError)")
        let venue = try VenueLoader.load(path: venuePath)
        let nodes = venue.anchors.filter { $0.floor == 0 && $0.z >= 0 }
        #expect(nodes.count >= 5, "ground-floor nodes of the example")

        let broker = try await MosquittoBroker()
        let solver = try ChildProcess(IntegrationEnvironment.bluedot, [
            "run", "--mqtt", broker.url, "--site", "house", "--venue", venuePath, "--mode", "tag", "--espresense",
            "--listen", "127.0.0.1:0", "--log-level", "info",
        ])
        defer { solver.kill() }
        #expect(await solver.waitForOutput(timeout: .seconds(30)) { _ in solver.standardError.contains("listening") },
                "\(solver.standardError.suffix(2000))")

        let device = "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-7"
        let target = "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7"
        var options = try MQTTOptions(url: broker.url)
        options.clientID = "espresense-nodes"
        let client = try MQTTClient(options: options, logger: Logger(label: "test.espresense"))
        try client.subscribe("bluedot/house/locations/+")
        try client.start()
        let fixes = LockedValue<[Location]>([])
        let watching = Task.detached {
            for await case .message(let m) in client.events {
                if let fix = try? LocationReader.read(source: MemoryChunkSource(m.payload), name: m.topic).first {
                    fixes.withLock { $0.append(fix) }
                }
            }
        }
        #expect(await eventually { client.isConnected })
        // The device stands at (6, 5), 1 m up, on the ground floor. Each node reports it five times a second with
        // the firmware's numbers: rssi@1m 6 dB below the venue's model (the device's own reference) and
        // rssi = rssi@1m - 10 n log10(d).
        let (x, y) = (6.0, 5.0)
        for round in 0..<40 {
            for message in Self.reports(device: device, nodes: nodes, venue: venue, x: x, y: y) { _ = client.publish(message) }
            if round % 5 == 0 {
                for node in nodes {
                    _ = client.publish(MQTTMessage(topic: "espresense/rooms/\(node.id)/status", text: "online", retain: true))
                }
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(await eventually(seconds: 5) { fixes.value.contains { !$0.lastKnown } })
        let last = try #require(fixes.value.last { !$0.lastKnown && $0.targetID == target },
                                "fixes of the canonical id: \(Set(fixes.value.map(\.targetID)))")
        let error = ((last.x - x) * (last.x - x) + (last.y - y) * (last.y - y)).squareRoot()
        print("ESPresense device solved at (\(last.x), \(last.y)), \(error) m from (\(x), \(y)), \(last.anchorCount) nodes")
        #expect(error < 1.5 && last.floor == 0)
        watching.cancel()
        client.stop()
        solver.signal(SIGTERM)
        _ = await solver.wait(timeout: .seconds(10))
        broker.kill()
    }
}
