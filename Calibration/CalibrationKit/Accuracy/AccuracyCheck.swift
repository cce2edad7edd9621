import BlueDotCore
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
    /// When set, each held-out run's scored fixes (the engine's own radius, per fold), or with no survey the set's
    /// (one fold), are written here as `<set>.scores.csv` (fold, fix x and y, true x and y, anchors, error, radius,
    /// truth time) for analysis (`Tools/analysis/local_radius.py`).
    public var scoresDirectory: String?
    /// Rooms files (`Tools/rooms/*.json`: `{"venue": path relative to the data folder, "rooms": [...],
    /// "openings": [...]}`) whose rooms and openings are added to the venue they name.
    public var roomsFiles: [String] = []

    /// What a replay knows of the set's survey.
    public enum SurveyUse: String, Sendable, CaseIterable {
        /// Calibrated on the other folds (the default).
        case heldOut = "held-out"
        /// Nothing: the venue as given, the engine's own radius (what a user who never surveys gets).
        case none
        /// Nothing, but the engine learns the models from the replay's own traffic (`SelfCalibration`).
        case learned

        /// The baseline file of this protocol, in `Calibration/`.
        public var baselineName: String {
            switch self {
            case .heldOut: return "accuracy-baseline.json"
            case .none: return "accuracy-baseline-no-survey.json"
            case .learned: return "accuracy-baseline-learned.json"
            }
        }

        /// The baseline's `protocolNote`.
        public var protocolNote: String {
            switch self {
            case .heldOut: return AccuracyCheck.protocolNote
            case .none: return "no survey: the venue as given, every set in full"
            case .learned: return "no survey, self-calibration after the venue's other traffic, every set in full"
            }
        }
    }

    /// What the replays know of the survey.
    public var surveyUse = SurveyUse.heldOut
    /// Whether the radius carries the anchors' model uncertainty (`EngineConfiguration.usesModelUncertainty`).
    public var usesModelUncertainty = true

    /// Creates a check.
    public init() {}

    /// Replays and scores one set.
    public func run(_ set: AccuracyScenario.TestSet) throws -> AccuracyBaseline.SetResult {
        try runScored(set).result
    }

    /// Replays and scores one set, with the points it scored and how (for `BlockBootstrap`'s intervals).
    public func runScored(_ set: AccuracyScenario.TestSet) throws
        -> (result: AccuracyBaseline.SetResult, points: [ScoredPoint], scoring: ScoringProtocol) {
        guard surveyUse == .heldOut else { return try runWithoutSurvey(set) }
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
        let result = AccuracyBaseline.SetResult(
            name: set.name, median: report.median ?? .infinity, p90: report.p90 ?? .infinity,
            coverage68: coverage(after),
            scoredShare: report.total > 0 ? Double(report.scored) / Double(report.total) : 0,
            truthPoints: report.total, meanRadius: meanRadius(after),
            uncalibratedCoverage68: coverage(before), uncalibratedMeanRadius: meanRadius(before),
            folds: indices.count, foldKind: heldOut.kind.rawValue)
        return (result, after, scoring)
    }

    /// A set replayed with no survey: the same survey lines the held-out run scores (the set's own file, or all of
    /// its one file), through an engine on the venue as given, learning or not.
    func runWithoutSurvey(_ set: AccuracyScenario.TestSet) throws
        -> (result: AccuracyBaseline.SetResult, points: [ScoredPoint], scoring: ScoringProtocol) {
        let venue = try withRooms(set.venue)
        let surveys = try SurveyCalibration.readSurveys(set.calibration, knownAnchors: Set(venue.anchors.map(\.id)))
        let own = Self.ownSurvey(set)
        let files = surveys.files.filter { $0.file == own }
        let samples = (files.isEmpty ? surveys.files : files).flatMap(\.samples).sorted { $0.t < $1.t }
        var configuration = set.isStatic ? EngineConfiguration.stationary : .moving
        overrides(&configuration)
        configuration.usesModelUncertainty = usesModelUncertainty
        if surveyUse == .learned { configuration.selfCalibration = SelfCalibration.Settings() }
        // Learning, a replay is what a gateway that has been running would do: the venue's other traffic goes
        // first (its RSSI only, truth unused), moved in time to end before the replay, each part a holdover apart.
        // That traffic is the venue's other walks (BOUN's tracks); a set with one survey has none, so it is
        // split in two at its widest gap in the middle third (UJI's two passes, WUT's runs 1-2 and 3-4), and each
        // half is replayed after the other.
        let others = files.isEmpty ? [] : surveys.files.filter { $0.file != own && !$0.samples.isEmpty }.map(\.samples)
        let parts = surveyUse == .learned && others.isEmpty ? Self.halves(samples) : [samples]
        var fixes: [Location] = []
        // What the last part's engine learned (both halves' traffic, for a set of one survey), and its fields.
        var learned: LearnedCalibration?, fieldCounters = (accepted: 0, rejected: 0)
        // Seconds into the scored traffic (its parts one after the other) of the first update taken during it.
        var firstUpdate: Double?, scoredBefore = 0.0
        for (k, part) in parts.enumerated() where !part.isEmpty {
            var engine = PositioningEngine(venue: venue, configuration: configuration)
            let start = part[0].t
            if surveyUse == .learned {
                let before = parts.count > 1 ? parts.enumerated().filter { $0.offset != k }.map(\.element) : others
                var end = start - 2 * configuration.holdoverSeconds
                for other in before.reversed() where !other.isEmpty {
                    let times = other.map(\.t)
                    let shift = end - times.max()!
                    end = times.min()! + shift - 2 * configuration.holdoverSeconds
                    for o in Self.observations(other, shift: shift) { _ = engine.ingest(o) }
                }
                _ = engine.advance(to: start - configuration.holdoverSeconds)
            }
            var partFixes: [Location] = []
            // When, into the scored traffic, learning's first update there was taken (the fixes before it are
            // those of the models it had learned before, or of the venue as given).
            var revision = engine.learnedRevision, accepted = engine.learnedCalibration?.counters.accepted ?? 0
            for o in Self.observations(part, shift: 0) {
                engine.ingest(o, into: &partFixes)
                guard surveyUse == .learned, firstUpdate == nil, engine.learnedRevision != revision else { continue }
                revision = engine.learnedRevision
                if let now = engine.learnedCalibration?.counters.accepted, now > accepted {
                    firstUpdate = o.t - start + scoredBefore
                    accepted = now
                }
            }
            scoredBefore += (part.last?.t ?? start) - start
            engine.finish(into: &partFixes)
            let next = k + 1 < parts.count ? parts[k + 1][0].t : .infinity
            fixes += partFixes.filter { $0.timestamp >= start && $0.timestamp < next }
            learned = engine.learnedCalibration
            fieldCounters = engine.selfCalibration?.fieldCounters ?? (0, 0)
        }
        let truth = try TruthReader.read(path: set.truth)
        let scoring: ScoringProtocol = set.isStatic ? .stationary : .movingDefault
        let points = Evaluator.score(fixes: fixes, truth: truth, scoring: scoring)
        try writeScores([points], name: set.name)
        let report = EvaluationReport(scoring: scoring, total: truth.count, points: points)
        let n = Double(max(points.count, 1))
        var result = AccuracyBaseline.SetResult(
            name: set.name, median: report.median ?? .infinity, p90: report.p90 ?? .infinity,
            coverage68: Double(points.filter(\.isCovered).count) / n,
            scoredShare: report.total > 0 ? Double(report.scored) / Double(report.total) : 0,
            truthPoints: report.total, meanRadius: points.map(\.fix.horizontalAccuracyMeters).reduce(0, +) / n)
        if let learned {
            // What was learned against what the set's whole survey fits (in-sample: the best a survey can say).
            let surveyed = SurveyCalibration.fit(venue: venue, samples: surveys.files.flatMap(\.samples), field: nil)
            let diff = Self.modelDifference(learned, surveyed.venue)
            result.learnedLevelRMS = diff.level
            result.learnedExponentRMS = diff.exponent
            result.learnedUpdates = learned.counters.accepted
            result.learnedFieldUpdates = fieldCounters.accepted
            result.learnedFieldsRefused = fieldCounters.rejected
            result.learnedFirstUpdateSeconds = firstUpdate
            result.scoredSeconds = scoredBefore
        }
        return (result, points, scoring)
    }

    /// Time-ordered samples split in two at the widest gap between consecutive samples in their middle third.
    public static func halves(_ samples: [CalibrationSample]) -> [[CalibrationSample]] {
        let n = samples.count
        guard n >= 3 else { return [samples] }
        var cut = n / 2, widest = -Double.infinity
        for i in max(n / 3, 1)..<max(2 * n / 3, n / 3 + 1) where samples[i].t - samples[i - 1].t > widest {
            (cut, widest) = (i, samples[i].t - samples[i - 1].t)
        }
        return [Array(samples[..<cut]), Array(samples[cut...])]
    }

    /// Samples as observations in time order, moved by `shift` seconds.
    static func observations(_ samples: [CalibrationSample], shift: Double) -> [Observation] {
        samples.sorted { $0.t < $1.t }.map {
            Observation(t: $0.t + shift, anchor: $0.anchor, target: $0.target, rssiDBm: $0.rssiDBm)
        }
    }

    /// The rms difference between learned models and a venue's (fitted) models over the anchors the learning
    /// heard: of the level at 4 m, dB, and of the exponent.
    public static func modelDifference(_ learned: LearnedCalibration, _ venue: Venue) -> (level: Double, exponent: Double) {
        let l4 = 10 * log10(ModelUncertainty.referenceDistanceMeters)
        var byID: [String: PathLossModel] = [:]
        for a in venue.anchors { byID[a.id] = a.model(default: venue.model) }
        var sl = 0.0, sn = 0.0, k = 0.0
        for e in learned.anchors where e.samples > 0 {
            guard let m = byID[e.id] else { continue }
            let dl = (e.measuredPowerDBm - e.pathLossExponent * l4) - (m.measuredPowerDBm - m.pathLossExponent * l4)
            let dn = e.pathLossExponent - m.pathLossExponent
            sl += dl * dl
            sn += dn * dn
            k += 1
        }
        return k > 0 ? ((sl / k).squareRoot(), (sn / k).squareRoot()) : (.nan, .nan)
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
        try writeScores(run.folds.map(\.scored), name: set.name)
        return run
    }

    /// Writes scored points, a list per fold, as `<name>.scores.csv` into `scoresDirectory`, when it is set.
    private func writeScores(_ folds: [[ScoredPoint]], name: String) throws {
        guard let scoresDirectory else { return }
        var text = "fold,x,y,truthX,truthY,anchors,error,radius,t\n"
        for (i, fold) in folds.enumerated() {
            for p in fold {
                text += "\(i),\(p.fix.x),\(p.fix.y),\(p.truth.x),\(p.truth.y),\(p.fix.anchorCount),"
                    + "\(p.errorMeters),\(p.fix.horizontalAccuracyMeters),\(p.truth.t)\n"
            }
        }
        try text.write(toFile: scoresDirectory + "/" + name + ".scores.csv", atomically: true, encoding: .utf8)
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
