import BeaconLocation
import BlueDotCore
import Formats
import FoundationEssentials
import JSON
import Positioning

/// Leave-one-fold-out replays of a survey: each fold is replayed by an engine calibrated on the other folds
/// only, and scored against the fold's own truth. What it yields: honest (held-out) errors and radii, the
/// conformal radius calibration computed from them (`RadiusCalibration.conformal`), and for each fold the same
/// calibration computed without that fold's scores, which is what scores a fold honestly.
///
/// Folds, from what the survey has (`FoldKind`): one per survey file when there are several (BOUN's tracks);
/// otherwise, for moving targets, one per run (runs split at gaps of over 10 minutes, WUT's four), or five
/// stretches of equal time when the survey is one run; for static targets, one per surveyed point (scans whose
/// truth positions agree within 1 cm, UJI's 34 points over both passes). A fold's observations are its survey
/// lines without the truth; its truth points are the survey's truth, one per moment (moving: each distinct time of
/// a target, the position of its first line; static: each target at its last line, as a scan is scored).
public struct HeldOutCalibration: Sendable {
    /// How the survey was split.
    public enum FoldKind: String, Sendable, Hashable {
        /// One fold per survey file.
        case file
        /// One fold per run: the survey split at gaps longer than `runGapSeconds`.
        case run
        /// Five stretches of equal time of one continuous survey.
        case stretch
        /// One fold per surveyed point (static targets).
        case point
    }

    /// The fixes of one fold, from the engine calibrated without it.
    public struct Fold: Sendable {
        /// The survey file (file folds), `run 2`, `stretch 3` or the point's `x,y`.
        public var name: String
        /// The survey file the fold's lines came from (the first, for a fold that spans files).
        public var file: String
        /// Every fix the held-out replay emitted, radii as the engine made them (no radius calibration).
        public var fixes: [Location]
        /// The fold's truth points scored against `fixes` (the mode's protocol); missing points are left out.
        public var scored: [ScoredPoint]
        /// Truth points of the fold, scored or not.
        public var truthPoints: Int
    }

    /// A survey that cannot be split into two or more folds.
    public struct TooFewFolds: Error, Sendable, CustomStringConvertible {
        /// Why.
        public var description: String
    }

    /// Gaps between runs, seconds.
    public static let runGapSeconds = 600.0
    /// Stretches a single-run moving survey is cut into.
    public static let stretches = 5

    /// The target model (picks the engine configuration and the scoring protocol).
    public var mode: RadiusCalibration.Mode
    /// How the survey was split.
    public var kind: FoldKind
    /// The folds, in order.
    public var folds: [Fold]

    /// Replays every fold of `surveys` (samples per file, as `SurveyCalibration.readSurveys` reads them)
    /// held out. `configuration` is the mode's engine configuration before calibration (the moving or stationary
    /// defaults, with any overrides); each fold's calibration is handed to it as `SurveyCalibration` does, or with
    /// `venueOnly` only its calibrated venue (models), as `bluedot run` uses a venue file written by
    /// `bluedot-calibrate fit`, which carries no residual field, body-shadow sigma or target height.
    public init(venue: Venue, surveys: [(file: String, samples: [CalibrationSample])], mode: RadiusCalibration.Mode,
                configuration: EngineConfiguration,
                calibrator: PathLossCalibrator = PathLossCalibrator(),
                field: ResidualField.Parameters? = ResidualField.Parameters(),
                venueOnly: Bool = false) throws(TooFewFolds) {
        self.mode = mode
        let (kind, groups) = Self.split(surveys, mode: mode)
        guard groups.count >= 2 else {
            throw TooFewFolds(description: "the survey has \(groups.count) fold(s) to hold out (several files, runs "
                              + "apart in time, or for static targets several surveyed points are needed)")
        }
        self.kind = kind
        let scoring: ScoringProtocol = mode == .static ? .stationary : .movingDefault
        // The static configuration does not use the residual field, nor does a venue file carry one: skip it.
        let fieldParameters = configuration.usesResidualField && !venueOnly ? field : nil
        var folds: [Fold] = []
        for (i, group) in groups.enumerated() {
            let training = groups.enumerated().filter { $0.offset != i }.flatMap(\.element.samples)
            let outcome = SurveyCalibration.fit(venue: venue, samples: training, calibrator: calibrator,
                                                field: fieldParameters)
            var engineConfiguration = configuration
            if !venueOnly { outcome.configure(&engineConfiguration) }
            engineConfiguration.usesRadiusCalibration = false
            let fixes = Self.replay(group.samples, venue: outcome.venue, configuration: engineConfiguration)
            let truth = Self.truth(group.samples, mode: mode)
            folds.append(Fold(name: group.name, file: group.file, fixes: fixes,
                              scored: Evaluator.score(fixes: fixes, truth: truth, scoring: scoring),
                              truthPoints: truth.count))
        }
        self.folds = folds
    }

    /// The conformal radius calibration from every fold's held-out scores: what a calibrated venue carries.
    public func calibration(probability: Double = AccuracyRadius.probability) -> RadiusCalibration? {
        RadiusCalibration.conformal(scores: folds.flatMap(Self.scores), probability: probability)
    }

    /// The calibration from every fold's scores but fold `i`'s: the one that scores fold `i` honestly.
    public func calibration(without i: Int, probability: Double = AccuracyRadius.probability) -> RadiusCalibration? {
        RadiusCalibration.conformal(scores: folds.enumerated().filter { $0.offset != i }.flatMap { Self.scores($0.element) },
                                    probability: probability)
    }

    /// Fold `i`'s fixes with their radii scaled by the calibration without fold `i`.
    public func calibratedFixes(_ i: Int) -> [Location] {
        let c = calibration(without: i)
        return folds[i].fixes.map { fix in
            var f = fix
            f.horizontalAccuracyMeters *= c?.scale(anchors: fix.anchorCount) ?? 1
            return f
        }
    }

    /// What the held-out replays say about the radius, before and after its calibration.
    public struct Summary: Sendable, Hashable, Codable {
        /// One band of the calibration.
        public struct Band: Sendable, Hashable, Codable {
            /// Fewest anchors of a fix in the band; the factor on the engine's radius; held-out scores behind it.
            public var anchors: Int, scale: Double, scores: Int
        }

        /// `moving` or `static`; what a fold is; how many.
        public var mode: String, foldKind: String, folds: Int
        /// Truth points scored, of all truth points of the folds.
        public var scored: Int, truthPoints: Int
        /// Held-out coverage of the 68% radius: each fold's fixes with the calibration made without that fold;
        /// and with the engine's own radius.
        public var coverage68: Double, uncalibratedCoverage68: Double
        /// Mean radius of the scored fixes, metres, the same two ways.
        public var meanRadius: Double, uncalibratedMeanRadius: Double
        /// Median and p90 held-out error, metres.
        public var median: Double, p90: Double
        /// The calibration from every fold (what a calibrated venue carries).
        public var bands: [Band]

        /// One paragraph for a terminal.
        public var text: String {
            func f(_ x: Double, _ decimals: Int) -> String { JSONText.fixed(x, decimals: decimals) }
            let bandText = bands.map { "\($0.anchors)+ anchors x\(f($0.scale, 3)) (\($0.scores))" }
                .joined(separator: ", ")
            return "radius (\(mode), \(folds) \(foldKind) folds held out, \(scored) of \(truthPoints) truth points "
                + "scored): held-out error median \(f(median, 2)) m, p90 \(f(p90, 2)) m; coverage68 \(f(coverage68, 3)) "
                + "with the calibrated radius (mean \(f(meanRadius, 2)) m), \(f(uncalibratedCoverage68, 3)) with the "
                + "engine's own (mean \(f(uncalibratedMeanRadius, 2)) m); scales: \(bandText)"
        }
    }

    /// The summary of these held-out replays.
    public var summary: Summary {
        var after: [ScoredPoint] = [], before: [ScoredPoint] = []
        for (i, fold) in folds.enumerated() {
            let c = calibration(without: i)
            before += fold.scored
            after += fold.scored.map { p in
                var q = p
                q.fix.horizontalAccuracyMeters *= c?.scale(anchors: p.fix.anchorCount) ?? 1
                return q
            }
        }
        func coverage(_ points: [ScoredPoint]) -> Double {
            points.isEmpty ? 0 : Double(points.filter(\.isCovered).count) / Double(points.count)
        }
        func mean(_ points: [ScoredPoint]) -> Double {
            points.isEmpty ? 0 : points.map(\.fix.horizontalAccuracyMeters).reduce(0, +) / Double(points.count)
        }
        let errors = before.map(\.errorMeters).sorted()
        let bands = (calibration()?.bands ?? []).map {
            Summary.Band(anchors: $0.minimumAnchors, scale: $0.scale, scores: $0.scores)
        }
        return Summary(mode: mode.rawValue, foldKind: kind.rawValue, folds: folds.count, scored: before.count,
                       truthPoints: folds.map(\.truthPoints).reduce(0, +), coverage68: coverage(after),
                       uncalibratedCoverage68: coverage(before), meanRadius: mean(after),
                       uncalibratedMeanRadius: mean(before), median: Percentile.of(sorted: errors, 50) ?? .nan,
                       p90: Percentile.of(sorted: errors, 90) ?? .nan, bands: bands)
    }

    /// The scores `error / horizontalAccuracy` of a fold's scored points, with the fixes' anchor counts.
    static func scores(_ fold: Fold) -> [(anchors: Int, score: Double)] {
        fold.scored.map { ($0.fix.anchorCount, $0.errorMeters / max($0.fix.horizontalAccuracyMeters, 1e-9)) }
    }

    /// The folds' samples.
    static func split(_ surveys: [(file: String, samples: [CalibrationSample])], mode: RadiusCalibration.Mode)
        -> (FoldKind, [(name: String, file: String, samples: [CalibrationSample])]) {
        let nonEmpty = surveys.filter { !$0.samples.isEmpty }
        if nonEmpty.count >= 2 {
            return (.file, nonEmpty.map { ($0.file, $0.file, $0.samples) })
        }
        guard let only = nonEmpty.first else { return (.file, []) }
        if mode == .static {
            // Targets (scans) grouped by their surveyed point, points in order of first appearance.
            var pointOf: [String: String] = [:]
            var order: [String] = []
            var byPoint: [String: [CalibrationSample]] = [:]
            for s in only.samples {
                let key = pointOf[s.target] ?? {
                    let k = "\(Int((s.x * 100).rounded())),\(Int((s.y * 100).rounded()))"
                    pointOf[s.target] = k
                    return k
                }()
                if byPoint[key] == nil { order.append(key) }
                byPoint[key, default: []].append(s)
            }
            let name = { (key: String) -> String in
                let xy = key.split(separator: ",").map { Double($0)! / 100 }
                return "\(xy[0]),\(xy[1])"
            }
            return (.point, order.map { (name($0), only.file, byPoint[$0]!) })
        }
        let samples = only.samples.sorted { $0.t < $1.t }
        var runs: [[CalibrationSample]] = [[]]
        for s in samples {
            if let last = runs[runs.count - 1].last, s.t - last.t > runGapSeconds { runs.append([]) }
            runs[runs.count - 1].append(s)
        }
        if runs.count >= 2 {
            return (.run, runs.enumerated().map { ("run \($0.offset + 1)", only.file, $0.element) })
        }
        guard let first = samples.first?.t, let last = samples.last?.t, last > first else { return (.stretch, []) }
        let span = (last - first) / Double(stretches)
        var parts = [[CalibrationSample]](repeating: [], count: stretches)
        for s in samples { parts[min(Int((s.t - first) / span), stretches - 1)].append(s) }
        return (.stretch, parts.enumerated().filter { !$0.element.isEmpty }
            .map { ("stretch \($0.offset + 1)", only.file, $0.element) })
    }

    /// A fold's survey lines as observations, in time order, through the daemon's positioning step (one
    /// `PositioningPipeline`: the batch of the whole fold, then the end of its input).
    static func replay(_ samples: [CalibrationSample], venue: Venue, configuration: EngineConfiguration)
        -> [Location] {
        let pipeline = PositioningPipeline(venue: venue, configuration: configuration)
        var batch = ObservationBatch()
        for s in samples.sorted(by: { $0.t < $1.t }) {
            let o = Observation(t: s.t, anchor: s.anchor, target: s.target, rssiDBm: s.rssiDBm)
            batch.append(Arrival(o, arrivedAt: s.t))
        }
        return pipeline.ingest(batch) + pipeline.finish()
    }

    /// The truth of a fold's survey lines: moving, one point per distinct (target, time), the first line's
    /// position; static, one point per target at its last line (a scan is scored when it is complete).
    static func truth(_ samples: [CalibrationSample], mode: RadiusCalibration.Mode) -> [TruthPoint] {
        var points: [TruthPoint] = []
        if mode == .static {
            var last: [String: CalibrationSample] = [:]
            var order: [String] = []
            for s in samples {
                if last[s.target] == nil { order.append(s.target) }
                if s.t >= last[s.target]?.t ?? -.infinity { last[s.target] = s }
            }
            points = order.map { let s = last[$0]!; return TruthPoint(t: s.t, target: s.target, x: s.x, y: s.y, z: s.z) }
        } else {
            var seen = Set<String>()
            for s in samples where seen.insert("\(s.target)@\(s.t)").inserted {
                points.append(TruthPoint(t: s.t, target: s.target, x: s.x, y: s.y, z: s.z))
            }
        }
        return points.sorted { $0.t < $1.t }
    }
}
