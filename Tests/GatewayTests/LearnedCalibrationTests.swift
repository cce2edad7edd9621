import BeaconLocation
import BlueDotCore
import Foundation
import Gateway
import Hummingbird
import Logging
import Positioning
import Testing

/// Keeps what the logger was told, for the one line a damaged file gets.
final class LogLines: Sendable {
    private let lines = LockedValue<[String]>([])
    var all: [String] { lines.value }

    var logger: Logger {
        Logger(label: "test") { _ in Handler(lines: self) }
    }

    struct Handler: LogHandler {
        let lines: LogLines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let extra = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            lines.lines.withLock { $0.append(([event.level.rawValue, "\(event.message)"] + extra).joined(separator: " ")) }
        }
    }
}

/// Self-calibration in the gateway: kept across restarts in its file, a damaged file ignored with one line, served at
/// `/api/calibration` and in `/metrics`.
@Suite struct LearnedCalibrationTests {
    /// Eight anchors on a ring; the venue says the default model, the world is 9 dB louder.
    static let venue: Venue = {
        let anchors = (0..<8).map { i -> Anchor in
            let θ = 2 * Double.pi * Double(i) / 8
            return Anchor(id: "a\(i)", x: 10 + 9 * cos(θ), y: 10 + 9 * sin(θ), z: 2.5)
        }
        return Venue(name: "ring", anchors: anchors, bounds: Venue.Bounds(minX: 0, minY: 0, maxX: 20, maxY: 20))
    }()

    /// A walk round a rectangle inside the ring, heard at 4 packets per second per anchor, in a world 9 dB louder.
    static func walk(seconds: Double, start: Double = 0) -> ObservationBatch {
        var world = venue
        world.model = PathLossModel(measuredPowerDBm: -50, pathLossExponent: 2.2, shadowingSigmaDB: 3)
        let corners = [(5.0, 6.0), (15.0, 6.0), (15.0, 14.0), (5.0, 14.0), (5.0, 6.0)]
        var waypoints: [Track.Waypoint] = []
        var t = start
        while t < start + seconds {
            for c in corners {
                waypoints.append(Track.Waypoint(t: t, x: c.0, y: c.1))
                t += 12
            }
        }
        var rng = Xoshiro256StarStar(seed: 9)
        let track = Track(target: "tag", waypoints: waypoints)
        return Simulator(venue: world, configuration: SimulationConfiguration(rateHz: 4))
            .simulate(tracks: [track], using: &rng).map { Arrival($0.observation, arrivedAt: $0.observation.t) }
    }

    static func pipeline() -> PositioningPipeline {
        var c = EngineConfiguration.moving
        c.selfCalibration = SelfCalibration.Settings()
        return PositioningPipeline(venue: venue, configuration: c)
    }

    static func scratch() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bluedot-learned-\(UUID().uuidString)")
        return folder.appendingPathComponent("state/learned-calibration.json").path
    }

    @Test func whatWasLearnedIsKeptAndTakenUpAfterARestart() throws {
        let path = try Self.scratch()
        let first = Self.pipeline()
        let log = LogLines()
        let keeper = LearnedCalibrationKeeper(pipeline: first, path: path, venueName: "ring", metrics: GatewayMetrics(),
                                              logger: log.logger)
        _ = first.ingest(Self.walk(seconds: 600))
        let learned = try #require(first.learnedCalibration)
        #expect(learned.counters.accepted >= 1)
        keeper.record()
        #expect(FileManager.default.fileExists(atPath: path), "the state folder is made and the file written")

        let second = Self.pipeline()
        let lines = LogLines()
        _ = LearnedCalibrationKeeper(pipeline: second, path: path, venueName: "ring", metrics: GatewayMetrics(),
                                     logger: lines.logger)
        let taken = try #require(second.learnedCalibration)
        #expect(taken.anchors.map(\.measuredPowerDBm) == learned.anchors.map(\.measuredPowerDBm))
        #expect(lines.all.contains { $0.hasPrefix("info learned calibration taken up") })
    }

    @Test func aDamagedOrForeignFileIsIgnoredWithOneLine() throws {
        let path = try Self.scratch()
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        for (text, reason) in [
            ("{\"version\": 1, \"venue\": \"ring\", \"phase\": \"learning\"", "line 1"),
            ("", "line 1"),
            ("{\"version\":1,\"venue\":\"ring\",\"phase\":\"learning\",\"records\":1,\"updates\":1,\"rejected\":0,"
                + "\"undone\":0,\"site\":{\"level\":-10,\"exponent\":2,\"levelSigma\":1,\"exponentSigma\":0.1},"
                + "\"anchors\":[]}", "outside the learning bounds"),
            ("{\"version\":1,\"venue\":\"elsewhere\",\"phase\":\"learning\",\"records\":1,\"updates\":1,\"rejected\":0,"
                + "\"undone\":0,\"site\":{\"level\":-71,\"exponent\":2,\"levelSigma\":1,\"exponentSigma\":0.1},"
                + "\"anchors\":[]}", "another venue"),
        ] {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let pipeline = Self.pipeline()
            let lines = LogLines()
            _ = LearnedCalibrationKeeper(pipeline: pipeline, path: path, venueName: "ring", metrics: GatewayMetrics(),
                                         logger: lines.logger)
            #expect(lines.all.count == 1, "\(lines.all)")
            #expect(lines.all.first?.hasPrefix("warning learned calibration ignored") == true, "\(lines.all)")
            #expect(lines.all.first?.contains(reason) == true, "\(lines.all)")
            // The engine starts from the venue's models and goes on.
            let learned = try #require(pipeline.learnedCalibration)
            #expect(learned.counters.accepted == 0)
            #expect(learned.anchors.allSatisfy { $0.measuredPowerDBm == -59 })
            #expect(!pipeline.ingest(Self.walk(seconds: 30)).isEmpty)
        }
    }

    @Test func servedAtTheAPIAndInTheMetrics() async throws {
        let fixture = try RouterFixture()
        let pipeline = Self.pipeline()
        _ = pipeline.ingest(Self.walk(seconds: 600))
        let keeper = LearnedCalibrationKeeper(pipeline: pipeline, path: nil, venueName: "ring", metrics: fixture.metrics,
                                              logger: RouterFixture.quiet)
        keeper.record()
        var with = fixture.dependencies()
        with.calibration = keeper
        try await Application(router: GatewayRouter.build(with)).test(.router) { client in
            try await client.execute(uri: "/api/calibration", method: .get) { response in
                #expect(response.status == .ok)
                let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                #expect(object?["venue"] as? String == "ring")
                let anchors = object?["anchors"] as? [[String: Any]]
                #expect(anchors?.count == 8)
                #expect((anchors?.first?["confidence"] as? Double ?? -1) > 0)
            }
        }
        try await Application(router: GatewayRouter.build(fixture.dependencies())).test(.router) { client in
            try await client.execute(uri: "/api/calibration", method: .get) { #expect($0.status == .notFound) }
        }
        // What the residuals say of the site, learning or not.
        let error = try #require(pipeline.siteModelError)
        fixture.metrics.record(error)
        let text = fixture.metrics.exposition()
        #expect(text.contains("bluedot_site_model_error{part=\"level\"} \(error.levelDB)"), "\(text)")
        #expect(text.contains("bluedot_site_model_uncertainty{part=\"exponent\"} \(error.uncertainty.exponentSigma)"))
        #expect(text.contains("bluedot_calibration_measured_power_dbm{anchor=\"a0\"}"))
        #expect(text.contains("bluedot_calibration_updates_total{result=\"accepted\"}"))
    }
}
