import BeaconLocation
import BlueDotCore
import Formats
import Foundation
import JSON
import Testing
@testable import Positioning

/// Replays of small slices of the real data and the bad-input paths of a replay.
///
/// The tolerances sit about 20% above the figures measured when the defaults were chosen (BOUN 1.16 / 2.88 m,
/// coverage 0.82; WUT 1.10 / 1.81 m; UJI 2.16 / 7.04 m, coverage 0.61), so a regression fails them.
@Suite struct ReplayTests {
    func run(_ slice: String, venue: String, height: Double, stationary: Bool = false, interval: Double = 1)
        async throws -> (report: EvaluationReport, summary: ReplayRun.Summary) {
        var configuration = stationary ? EngineConfiguration.stationary : EngineConfiguration.moving
        configuration.targetHeightMeters = height
        configuration.intervalSeconds = interval
        let site = try VenueLoader.load(path: Fixtures.path(venue))
        let (fixes, summary) = try await ReplayRun(venue: site, configuration: configuration)
            .run(path: Fixtures.path("\(slice).observations.jsonl"))
        let truth = try TruthReader.read(path: Fixtures.path("\(slice).truth.jsonl"))
        return (Evaluator.evaluate(fixes: fixes, truth: truth, scoring: stationary ? .stationary : .movingDefault),
                summary)
    }

    @Test func bounWalkingSlice() async throws {
        let (report, summary) = try await run("slice-boun-straight_01-30s", venue: "slice-boun-tetam.calibrated.venue.json",
                                        height: 1.82)
        #expect(summary.read.accepted == 685 && summary.read.dropped == 0)
        #expect(report.missing == 0)
        #expect((report.median ?? .infinity) < 1.4, "median \(report.median ?? .nan)")
        #expect((report.p90 ?? .infinity) < 3.4, "p90 \(report.p90 ?? .nan)")
        #expect((0.6...0.95).contains(report.coverage68 ?? 0), "coverage \(report.coverage68 ?? .nan)")
    }

    @Test func wutRobotSlice() async throws {
        let (report, _) = try await run("slice-wut-calibration-60s", venue: "slice-wut-flat.calibrated.venue.json",
                                  height: 1.3)
        #expect(report.missing == 0)
        #expect((report.median ?? .infinity) < 1.35, "median \(report.median ?? .nan)")
        #expect((report.p90 ?? .infinity) < 2.2, "p90 \(report.p90 ?? .nan)")
    }

    @Test func ujiStaticScansSlice() async throws {
        let (report, _) = try await run("slice-uji-geo-tx04-40scans", venue: "slice-uji-geo-tx04.calibrated.venue.json",
                                  height: 0, stationary: true)
        #expect(report.missing == 0 && report.total == 38)
        #expect((report.median ?? .infinity) < 2.6, "median \(report.median ?? .nan)")
        #expect((report.p90 ?? .infinity) < 8.5, "p90 \(report.p90 ?? .nan)")
        #expect((0.4...0.85).contains(report.coverage68 ?? 0), "coverage \(report.coverage68 ?? .nan)")
    }

    /// Writes a temporary observation file.
    func temporaryFile(_ lines: [String]) throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("replay-\(UUID().uuidString).jsonl").path
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let messy = [
        #"{"t": 10.0, "anchor": "a0", "target": "t", "rssi": -70}"#,
        #"{"t": 10.1, "anchor": "a1", "target": "t", "rssi": "loud"}"#,
        #"not json at all"#,
        #"{"t": 10.2, "anchor": "ghost", "target": "t", "rssi": -70}"#,
        #"{"t": 10.3, "anchor": "a2", "target": "u", "rssi": -65}"#,
        #"{"t": 12.0, "anchor": "a3", "target": "t", "rssi": -72}"#,
        #"{"t": 5.0, "anchor": "a4", "target": "t", "rssi": -72}"#,
        #"{"t": 12.5, "anchor": "a5", "target": "t", "rssi": -71}"#,
    ]

    @Test func badLinesAreCountedAndSkipped() async throws {
        let path = try temporaryFile(Self.messy)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (fixes, summary) = try await ReplayRun(venue: testVenue(), configuration: .moving).run(path: path)
        #expect(summary.read.malformed == 2)
        #expect(summary.read.unknownAnchor == 1)
        #expect(summary.read.late == 1)
        #expect(summary.read.accepted == 4)
        #expect(Set(fixes.map(\.targetID)) == ["t", "u"])
        #expect(fixes.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.horizontalAccuracyMeters > 0 })
    }

    @Test func strictModeStopsAtTheFirstBadLineNamingIt() async throws {
        let path = try temporaryFile(Self.messy)
        defer { try? FileManager.default.removeItem(atPath: path) }
        await #expect {
            _ = try await ReplayRun(venue: testVenue(), configuration: .moving, strict: true).run(path: path)
        } throws: { error in
            guard let e = error as? JSONLinesError else { return false }
            return e.line == 2 && e.file.hasSuffix(".jsonl")
        }
    }

    @Test func selectedTargetsOnly() async throws {
        let path = try temporaryFile(Self.messy)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (fixes, summary) = try await ReplayRun(venue: testVenue(), configuration: .moving, targets: ["u"]).run(path: path)
        #expect(Set(fixes.map(\.targetID)) == ["u"])
        #expect(summary.otherTargets == 3)
    }

    @Test func emptyAndMissingInput() async throws {
        let path = try temporaryFile([])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (fixes, _) = try await ReplayRun(venue: testVenue(), configuration: .moving).run(path: path)
        #expect(fixes.isEmpty)
        await #expect(throws: JSONLinesError.self) {
            _ = try await ReplayRun(venue: testVenue(), configuration: .moving).run(path: "/nonexistent/obs.jsonl")
        }
    }

    /// A replay goes through the daemon's pipeline (an input, the runner, the pipeline's engine): its fixes are
    /// those of one engine fed the file line by line, in the same order, bit for bit.
    @Test func theDaemonsPipelineMakesTheFixesOfAnEngineFedLineByLine() async throws {
        let path = Fixtures.path("slice-boun-straight_01-30s.observations.jsonl")
        let site = try VenueLoader.load(path: Fixtures.path("slice-boun-tetam.calibrated.venue.json"))
        var engine = PositioningEngine(venue: site, configuration: .moving)
        var reader = try ObservationReader(path: path, options: .init(knownAnchors: Set(site.anchors.map(\.id))))
        var direct: [Location] = []
        while let line = try reader.next() { engine.ingest(line.observation, into: &direct) }
        engine.finish(into: &direct)
        let (replayed, summary) = try await ReplayRun(venue: site, configuration: .moving).run(path: path)
        #expect(replayed.count == direct.count && direct.count > 20)
        #expect(replayed.map { LocationWriter.line($0) } == direct.map { LocationWriter.line($0) })
        #expect(replayed.allSatisfy { fix in fix.reportedAt.map { $0 <= fix.timestamp } ?? false },
                "each fix carries its newest report's arrival, the observation's own time in a replay")
        #expect(summary.engine.fixes == engine.counters.fixes)
    }
}
