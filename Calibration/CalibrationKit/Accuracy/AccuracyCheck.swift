import Formats
import Foundation
import Positioning

/// `accuracy`: replays each test set through the positioning engine exactly as `bluedot replay --calibrate`
/// does (venue calibrated on the set's surveys by `SurveyCalibration`, target height from the survey, the
/// moving or stationary configuration, `ReplayRun`), scores it with `Evaluator`, and compares with a baseline.
///
/// `limitSeconds` subsamples: only observations and truth in the first N seconds of each set (from its first
/// observation) are replayed, through temporary copies of the files, so the same code path runs on less data.
public struct AccuracyCheck: Sendable {
    /// Replay at most this many seconds of each set; nil replays everything.
    public var limitSeconds: Double?
    /// Folder for the subsampled copies.
    public var scratchDirectory: String

    /// Creates a check.
    public init(limitSeconds: Double? = nil, scratchDirectory: String = NSTemporaryDirectory()) {
        self.limitSeconds = limitSeconds
        self.scratchDirectory = scratchDirectory
    }

    /// How the sets were replayed, for the baseline's `protocolNote`.
    public var protocolNote: String {
        limitSeconds.map { "first \(Int($0)) s of each set" } ?? "every set in full"
    }

    /// Replays and scores one set.
    public func run(_ set: AccuracyScenario.TestSet) throws -> AccuracyBaseline.SetResult {
        let venue = try VenueLoader.load(path: set.venue)
        let outcome = try SurveyCalibration.calibrate(venue: venue, surveys: set.calibration)
        var configuration = set.isStatic ? EngineConfiguration.stationary : EngineConfiguration.moving
        outcome.configure(&configuration)
        let (observations, truthPath) = try subsample(set)
        let (fixes, _) = try ReplayRun(venue: outcome.venue, configuration: configuration).run(path: observations)
        let truth = try TruthReader.read(path: truthPath)
        let report = Evaluator.evaluate(fixes: fixes, truth: truth,
                                        scoring: set.isStatic ? .stationary : .movingDefault)
        return AccuracyBaseline.SetResult(
            name: set.name, median: report.median ?? .infinity, p90: report.p90 ?? .infinity,
            coverage68: report.coverage68 ?? 0,
            scoredShare: report.total > 0 ? Double(report.scored) / Double(report.total) : 0,
            truthPoints: report.total)
    }

    /// The observation and truth files to replay: the originals, or copies cut at `limitSeconds`.
    private func subsample(_ set: AccuracyScenario.TestSet) throws -> (String, String) {
        guard let limitSeconds else { return (set.observations, set.truth) }
        let observations = try String(contentsOfFile: set.observations, encoding: .utf8)
        guard let first = observations.split(separator: "\n").lazy.compactMap(Self.time).first else {
            return (set.observations, set.truth)
        }
        let end = first + limitSeconds
        func cut(_ text: String) -> String {
            text.split(separator: "\n").filter { (Self.time($0) ?? .infinity) <= end }.joined(separator: "\n") + "\n"
        }
        let base = scratchDirectory + "/bluedot-accuracy-" + set.name
        try cut(observations).write(toFile: base + ".observations.jsonl", atomically: true, encoding: .utf8)
        try cut(try String(contentsOfFile: set.truth, encoding: .utf8))
            .write(toFile: base + ".truth.jsonl", atomically: true, encoding: .utf8)
        return (base + ".observations.jsonl", base + ".truth.jsonl")
    }

    /// The `"t"` of a JSONL line (the value after the first `"t":`), nil when absent.
    static func time(_ line: Substring) -> Double? {
        guard let key = line.range(of: "\"t\":") else { return nil }
        let rest = line[key.upperBound...].drop { $0 == " " }
        return Double(rest.prefix { $0.isNumber || $0 == "." || $0 == "-" || $0 == "e" || $0 == "E" || $0 == "+" })
    }
}
