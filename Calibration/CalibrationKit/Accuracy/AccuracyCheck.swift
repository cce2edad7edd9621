import CalibrationRuns
import Formats
import Foundation
import Positioning
import SystemIO

/// `accuracy`: scores each test set held out. The set's surveys are split into folds (`HeldOutCalibration`:
/// BOUN's tracks, WUT's runs, UJI's surveyed points); each fold is replayed by an engine calibrated on the other
/// folds only (models, site bias field, body shadow, exactly as `bluedot replay --calibrate` fits them), and its
/// radii are scaled by the conformal radius calibration of the other folds' held-out scores. The set's fixes
/// (its own track's fold, or all folds of its one survey) are then scored against the set's truth file by
/// `Evaluator`, and compared with a baseline.
///
/// Sets that share a venue, surveys and mode (the four BOUN tracks) share one held-out run.
public final class AccuracyCheck {
    /// How the sets were replayed, for the baseline's `protocolNote`.
    public static let protocolNote = "leave one fold out (tracks, runs, points), every set in full"

    /// Held-out runs already made, by venue, surveys and mode.
    private var runs: [String: HeldOutCalibration] = [:]
    /// Changes to both modes' engine configuration (e.g. `usesWalls`), applied before calibration.
    public var overrides: @Sendable (inout EngineConfiguration) -> Void = { _ in }
    /// The path-loss calibrator each fold is fitted with (`--fit-walls` sets its `fitsWallLoss`).
    public var calibrator = PathLossCalibrator()
    /// When set, each held-out run's scored fixes are written here as `<set>.scores.csv` (fold, fix x and y,
    /// true x and y, anchors, error, radius) for analysis (`Tools/analysis/local_radius.py`).
    public var scoresDirectory: String?
    /// Rooms files (`Tools/rooms/*.json`: `{"venue": path relative to the data folder, "rooms": [...],
    /// "openings": [...]}`) whose rooms and openings are added to the venue they name.
    public var roomsFiles: [String] = []

    /// Creates a check.
    public init() {}

    /// Replays and scores one set held out.
    public func run(_ set: AccuracyScenario.TestSet) throws -> AccuracyBaseline.SetResult {
        let (heldOut, indices, truth, scoring) = try scored(set)
        let calibrated = indices.flatMap { heldOut.calibratedFixes($0) }.sorted { $0.timestamp < $1.timestamp }
        let raw = indices.flatMap { heldOut.folds[$0].fixes }.sorted { $0.timestamp < $1.timestamp }
        let after = Evaluator.score(fixes: calibrated, truth: truth, scoring: scoring)
        let before = Evaluator.score(fixes: raw, truth: truth, scoring: scoring)
        let report = EvaluationReport(scoring: scoring, total: truth.count, points: after)
        func coverage(_ points: [ScoredPoint]) -> Double {
            points.isEmpty ? 0 : Double(points.filter(\.isCovered).count) / Double(points.count)
        }
        func meanRadius(_ points: [ScoredPoint]) -> Double {
            points.isEmpty ? 0 : points.map(\.fix.horizontalAccuracyMeters).reduce(0, +) / Double(points.count)
        }
        return AccuracyBaseline.SetResult(
            name: set.name, median: report.median ?? .infinity, p90: report.p90 ?? .infinity,
            coverage68: coverage(after),
            scoredShare: report.total > 0 ? Double(report.scored) / Double(report.total) : 0,
            truthPoints: report.total, meanRadius: meanRadius(after),
            uncalibratedCoverage68: coverage(before), uncalibratedMeanRadius: meanRadius(before),
            folds: indices.count, foldKind: heldOut.kind.rawValue)
    }

    /// One fold of a set scored on its own, with the radius calibrated on the other folds.
    public struct FoldResult: Sendable {
        /// The fold's position among the set's folds, from 1.
        public var number: Int
        public var median: Double
        public var p90: Double
        public var coverage68: Double
        public var meanRadius: Double
        /// Truth points the fold's fixes scored.
        public var scored: Int
    }

    /// Each of the set's scored folds on its own (a WUT run, a BOUN track), as `run` scores them together: the
    /// guarantee of the conformal radius is over folds alike, and this shows how far each fold is from it.
    public func folds(of set: AccuracyScenario.TestSet) throws -> [FoldResult] {
        let (heldOut, indices, truth, scoring) = try scored(set)
        return indices.map { i in
            let fixes = heldOut.calibratedFixes(i).sorted { $0.timestamp < $1.timestamp }
            let points = Evaluator.score(fixes: fixes, truth: truth, scoring: scoring)
            return Self.result(number: i + 1, points, scoring: scoring, total: truth.count)
        }
    }

    /// The set scored as `run` scores it, its points split by truth time: those less than `seconds` after the
    /// set's first truth point (number 1) and the rest (number 2). UJI's two passes over its points split 44,200 s
    /// in (at its scan 442: 34 points of 13 scans, one scan a row every 100 s in the converted files).
    public func split(_ set: AccuracyScenario.TestSet, after seconds: Double) throws -> [FoldResult] {
        let (heldOut, indices, truth, scoring) = try scored(set)
        let fixes = indices.flatMap { heldOut.calibratedFixes($0) }.sorted { $0.timestamp < $1.timestamp }
        let points = Evaluator.score(fixes: fixes, truth: truth, scoring: scoring)
        let time = (truth.map(\.t).min() ?? 0) + seconds
        return [points.filter { $0.truth.t < time }, points.filter { $0.truth.t >= time }].enumerated().map { k, part in
            Self.result(number: k + 1, part, scoring: scoring, total: truth.count)
        }
    }

    private static func result(number: Int, _ points: [ScoredPoint], scoring: ScoringProtocol, total: Int)
        -> FoldResult {
        let report = EvaluationReport(scoring: scoring, total: total, points: points)
        let n = Double(max(points.count, 1))
        return FoldResult(
            number: number, median: report.median ?? .infinity, p90: report.p90 ?? .infinity,
            coverage68: Double(points.filter(\.isCovered).count) / n,
            meanRadius: points.map(\.fix.horizontalAccuracyMeters).reduce(0, +) / n, scored: points.count)
    }

    /// What scoring a set takes: its held-out run, the folds it scores, its truth and how it is scored. A set whose
    /// own survey is one of several files is that file's fold; otherwise every fold is the set's.
    private func scored(_ set: AccuracyScenario.TestSet) throws
        -> (HeldOutCalibration, [Int], [TruthPoint], ScoringProtocol) {
        let heldOut = try heldOutRun(set, mode: set.isStatic ? .static : .moving)
        let own = heldOut.folds.indices.filter { heldOut.kind == .file && heldOut.folds[$0].file == Self.ownSurvey(set) }
        let indices = own.isEmpty ? Array(heldOut.folds.indices) : own
        return (heldOut, indices, try TruthReader.read(path: set.truth), set.isStatic ? .stationary : .movingDefault)
    }

    /// The held-out run of a set's venue, surveys and mode, made once.
    private func heldOutRun(_ set: AccuracyScenario.TestSet, mode: RadiusCalibration.Mode) throws
        -> HeldOutCalibration {
        let key = ([set.venue, mode.rawValue] + set.calibration).joined(separator: "\n")
        if let run = runs[key] { return run }
        let venue = try withRooms(set.venue)
        let surveys = try SurveyCalibration.readSurveys(set.calibration, knownAnchors: Set(venue.anchors.map(\.id)))
        var configuration = mode == .static ? EngineConfiguration.stationary : .moving
        overrides(&configuration)
        let run = try HeldOutCalibration(venue: venue, surveys: surveys.files, mode: mode, configuration: configuration,
                                         calibrator: calibrator)
        runs[key] = run
        if let scoresDirectory {
            var text = "fold,x,y,truthX,truthY,anchors,error,radius\n"
            for (i, fold) in run.folds.enumerated() {
                for p in fold.scored {
                    text += "\(i),\(p.fix.x),\(p.fix.y),\(p.truth.x),\(p.truth.y),\(p.fix.anchorCount),"
                        + "\(p.errorMeters),\(p.fix.horizontalAccuracyMeters)\n"
                }
            }
            try text.write(toFile: scoresDirectory + "/" + set.name + ".scores.csv", atomically: true, encoding: .utf8)
        }
        return run
    }

    /// The venue file with the rooms and openings of every rooms file that names it.
    private func withRooms(_ path: String) throws -> Venue {
        let extra = try roomsFiles.compactMap { file -> [String: Any]? in
            let root = try JSONSerialization.jsonObject(with: Data(try WholeFile.read(file)))
            guard let root = root as? [String: Any], let venue = root["venue"] as? String else {
                throw AccuracyScenario.LoadError(description: "\(file): expected {\"venue\": ..., \"rooms\": [...]}")
            }
            return path.hasSuffix("/" + venue) ? root : nil
        }
        guard !extra.isEmpty else { return try VenueLoader.load(path: path) }
        guard var root = try JSONSerialization.jsonObject(with: Data(try WholeFile.read(path)))
            as? [String: Any] else { return try VenueLoader.load(path: path) }
        for key in ["rooms", "openings"] {
            let added = extra.flatMap { $0[key] as? [Any] ?? [] }
            if !added.isEmpty { root[key] = (root[key] as? [Any] ?? []) + added }
        }
        let data = try JSONSerialization.data(withJSONObject: root)
        let url = URL(fileURLWithPath: path)
        return try VenueLoader.parse([UInt8](data), file: url.lastPathComponent,
                                     baseDirectory: url.deletingLastPathComponent().path)
    }

    /// The survey file named after the set (`<folder>/<name>.survey.jsonl`), when the set lists it.
    static func ownSurvey(_ set: AccuracyScenario.TestSet) -> String? {
        set.calibration.first { ($0 as NSString).lastPathComponent == set.name + ".survey.jsonl" }
    }
}
