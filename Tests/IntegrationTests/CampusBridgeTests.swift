import BlueDotCore
import Formats
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
        """
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
}
