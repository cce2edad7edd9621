import BeaconLocation
import BlueDotCore
import Foundation
import LocationDisplay
import Positioning
import SystemIO
import Testing

@Suite("BeaconLocationDataSource over the Bumble virtual controller", .serialized,
       .enabled(if: BumbleWorld.enabled,
                "no Python with bumble: set BLUEDOT_PYTHON or create .venv; BLUEDOT_REQUIRE_INTEGRATION=1 fails"))
struct BeaconLocationBumbleTests {
    /// Five iBeacons around a 10 m x 8 m room at 1 m height; the receiver stands at (4, 3, 1).
    static let beacons: [(minor: Int, x: Double, y: Double)] = [(1, 0, 0), (2, 10, 0), (3, 10, 8), (4, 0, 8), (5, 5, 4)]
    static let receiver = (x: 4.0, y: 3.0)
    static let uuid = "f7826da6-4fa2-4e98-8024-bc5b71e0893e"

    static func writeConfig() throws -> String {
        let entries = beacons.map { b in
            """
            {"frame": "ibeacon", "uuid": "\(uuid)", "major": 1, "minor": \(b.minor), "x": \(b.x), "y": \(b.y), \
            "z": 1.0}
            """
        }
        let json = """
        {"receiver": {"x": \(receiver.x), "y": \(receiver.y), "z": 1.0}, "noise": {"sigma": 1.0},
         "defaults": {"measuredPower": -59, "pathLossExponent": 2.0, "intervalMs": 100},
         "beacons": [\(entries.joined(separator: ",\n"))]}
        """
        let path = temporaryPath("world.json")
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let venue = Venue(
        name: "bumble room", model: PathLossModel(measuredPowerDBm: -59, pathLossExponent: 2, shadowingSigmaDB: 2),
        anchors: beacons.map { Anchor(id: "ibeacon:\(uuid):1:\($0.minor)", x: $0.x, y: $0.y, z: 1) },
        bounds: .init(minX: 0, minY: 0, maxX: 10, maxY: 8))

    /// A source on the world's H4 endpoint, started, with its location stream.
    static func startedSource(on world: BumbleWorld) async throws
        -> (BeaconLocationDataSource, AsyncStream<Location>) {
        let transport = try H4StreamTransport(tcp: "127.0.0.1:\(world.port)")
        let source = BeaconLocationDataSource(transport: transport, venue: venue, logger: quietLogger)
        let locations = source.locations
        try await source.start()
        return (source, locations)
    }

    /// The locations `body` collects, or none when it takes longer than `seconds`.
    static func within(seconds: Double, _ body: @escaping @Sendable () async -> [Location]) async throws
        -> [Location] {
        try await withThrowingTaskGroup(of: [Location].self) { group in
            group.addTask { await body() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return []
            }
            let first = try await group.next() ?? []
            group.cancelAll()
            return first
        }
    }

    @Test("a live scan locates the receiver; stop closes the session")
    func locatesTheReceiver() async throws {
        let config = try Self.writeConfig()
        defer { try? FileManager.default.removeItem(atPath: config) }
        let world = try await BumbleWorld(config: config)
        defer { world.stop() }
        let (source, locations) = try await Self.startedSource(on: world)
        #expect(source.status == .started)
        // Six fixes on the 1 s grid: the engine settles within the first few.
        let received = try await Self.within(seconds: 20) { await collect(locations, count: 6) }
        await source.stop()
        #expect(source.status == .stopped)
        #expect(received.count == 6, "got \(received.count) locations in 20 s")
        // Tolerance: 1 dB noise, 5 beacons within 7 m; the last three fixes within 1.0 m of the receiver.
        for location in received.suffix(3) {
            let error = hypot(location.x - Self.receiver.x, location.y - Self.receiver.y)
            #expect(error < 1.0, "fix at (\(location.x), \(location.y)) is \(error) m off")
            #expect(location.anchorCount == 5)
        }
        let statistics = source.statistics
        #expect(statistics.unknownAnchors == 0)
        #expect(statistics.observations >= 5 * 5 * 4)
    }

    @Test("when the controller goes away the dot keeps coming, last known with a growing radius")
    func quietControllerGivesLastKnownFixes() async throws {
        let config = try Self.writeConfig()
        defer { try? FileManager.default.removeItem(atPath: config) }
        let world = try await BumbleWorld(config: config)
        defer { world.stop() }
        let (source, locations) = try await Self.startedSource(on: world)
        // Three fixes while beacons are heard, then the world is killed: no more packets (the scanner keeps
        // trying to reconnect), and the clock alone releases the grid.
        let received = try await Self.within(seconds: 30) {
            var out: [Location] = []
            for await location in locations {
                out.append(location)
                if out.count == 3 { world.stop() }
                if out.count == 8 { break }
            }
            return out
        }
        await source.stop()
        #expect(received.count == 8, "got \(received.count) locations in 30 s")
        let held = received.filter(\.lastKnown)
        // The fix in flight when the world died may still carry packets; the rest are last known.
        #expect(held.count >= 4, "last known: \(held.count) of \(received.count)")
        // The radius grows with the silence until the venue bounds it: the filter is truncated to the 10 x 8 m
        // bounds, so after several silent seconds (more of them when a loaded machine let the world die before
        // the third fix) it levels off. The first three silent seconds are well inside that.
        let radii = held.map(\.horizontalAccuracyMeters)
        #expect(zip(radii.prefix(3), radii.prefix(3).dropFirst()).allSatisfy { $0 < $1 }, "radii \(radii)")
        #expect(radii.allSatisfy { $0 < hypot(10, 8) }, "radii \(radii)")
        #expect(zip(received, received.dropFirst()).allSatisfy { abs($1.timestamp - $0.timestamp - 1) < 1e-6 })
        let first = try #require(held.first)
        #expect(hypot(first.x - Self.receiver.x, first.y - Self.receiver.y) < 1.5)
    }
}
