import Foundation
import SystemIO

/// The checked-in accuracy of the engine per test set, and the tolerance a run must stay within.
///
/// A set fails when (all in metres, errors as scored by `Evaluator`):
/// - its median or p90 exceeds the baseline's × (1 + `relative`) + `absoluteMeters`;
/// - its coverage68 (share of truth points inside the reported accuracy radius) leaves the band
///   [min(`coverageLow`, baseline − `coverageSlack`), max(`coverageHigh`, baseline + `coverageSlack`)], i.e.
///   the honest band around 0.68, widened to tolerate a baseline already outside it by `coverageSlack`;
/// - its share of scored truth points falls more than `missingSlack` below the baseline's;
/// - it is missing from the run, or a baseline set is missing from the scenario.
public struct AccuracyBaseline: Sendable, Hashable, Codable {
    /// The tolerance of the comparison.
    public struct Tolerance: Sendable, Hashable, Codable {
        /// Relative slack on median and p90 (0.10 = +10 %).
        public var relative: Double = 0.10
        /// Absolute slack on median and p90, metres.
        public var absoluteMeters: Double = 0.05
        /// The honest coverage band.
        public var coverageLow: Double = 0.60, coverageHigh: Double = 0.76
        /// How far outside the band a baseline may be exceeded.
        public var coverageSlack: Double = 0.05
        /// Drop of the scored share allowed.
        public var missingSlack: Double = 0.02

        /// The documented defaults.
        public init() {}
    }

    /// One set's accuracy.
    public struct SetResult: Sendable, Hashable, Codable {
        /// The set's name.
        public var name: String
        /// Median and p90 horizontal error, metres.
        public var median: Double, p90: Double
        /// Share of truth points inside the accuracy radius.
        public var coverage68: Double
        /// Scored truth points over all truth points.
        public var scoredShare: Double
        /// Truth points of the set.
        public var truthPoints: Int
        /// Mean radius of the scored fixes (after the held-out radius calibration), metres.
        public var meanRadius: Double?
        /// Coverage and mean radius of the same fixes with the engine's own radius (no radius calibration).
        public var uncalibratedCoverage68: Double?, uncalibratedMeanRadius: Double?
        /// How many folds the set's fixes came from, and what a fold is (`HeldOutCalibration.FoldKind`).
        public var folds: Int?, foldKind: String?
        /// With self-calibration: the rms difference between the learned models and the set's survey fit, of the
        /// level at 4 m (dB) and of the exponent, and how many updates were accepted.
        public var learnedLevelRMS: Double?, learnedExponentRMS: Double?, learnedUpdates: Int?
        /// With self-calibration: seconds into the scored traffic of the first update taken during it (nil: none
        /// was; the fixes before it are those of what was learned before the scored traffic, or of the venue as
        /// given), and how long that traffic lasts. Not compared with the baseline.
        public var learnedFirstUpdateSeconds: Double?, scoredSeconds: Double?
        /// With self-calibration: learned site bias fields taken and refused by their held-out check. Not compared.
        public var learnedFieldUpdates: Int?, learnedFieldsRefused: Int?

        /// Creates a result.
        public init(name: String, median: Double, p90: Double, coverage68: Double, scoredShare: Double,
                    truthPoints: Int, meanRadius: Double? = nil, uncalibratedCoverage68: Double? = nil,
                    uncalibratedMeanRadius: Double? = nil, folds: Int? = nil, foldKind: String? = nil) {
            self.name = name
            self.median = median
            self.p90 = p90
            self.coverage68 = coverage68
            self.scoredShare = scoredShare
            self.truthPoints = truthPoints
            self.meanRadius = meanRadius
            self.uncalibratedCoverage68 = uncalibratedCoverage68
            self.uncalibratedMeanRadius = uncalibratedMeanRadius
            self.folds = folds
            self.foldKind = foldKind
        }
    }

    /// How the sets were replayed (`AccuracyCheck.protocolNote`; must match between runs).
    public var protocolNote: String
    /// The tolerance.
    public var tolerance: Tolerance
    /// Per set.
    public var sets: [SetResult]

    /// Creates a baseline.
    public init(protocolNote: String, tolerance: Tolerance = Tolerance(), sets: [SetResult]) {
        self.protocolNote = protocolNote
        self.tolerance = tolerance
        self.sets = sets
    }

    /// Reads a baseline file.
    public static func load(path: String) throws -> AccuracyBaseline {
        try JSONDecoder().decode(AccuracyBaseline.self, from: Data(try WholeFile.read(path)))
    }

    /// Pretty-printed JSON with sorted keys, ending in a newline.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// The failures of a run against this baseline: one clear message per problem, empty when it passes.
    public func failures(of run: [SetResult]) -> [String] {
        let t = tolerance
        var problems: [String] = []
        let current = Dictionary(run.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for b in sets {
            guard let r = current[b.name] else {
                problems.append("\(b.name): in the baseline but not in this run")
                continue
            }
            for (label, now, then) in [("median", r.median, b.median), ("p90", r.p90, b.p90)] {
                let limit = then * (1 + t.relative) + t.absoluteMeters
                if !(now <= limit) {
                    problems.append(String(format: "%@: %@ %.2f m is worse than baseline %.2f m (limit %.2f m)",
                                           b.name, label, now, then, limit))
                }
            }
            let low = min(t.coverageLow, b.coverage68 - t.coverageSlack)
            let high = max(t.coverageHigh, b.coverage68 + t.coverageSlack)
            if !(low...high).contains(r.coverage68) {
                problems.append(String(format: "%@: coverage68 %.3f outside [%.3f, %.3f] (baseline %.3f)", b.name,
                                       r.coverage68, low, high, b.coverage68))
            }
            if r.scoredShare < b.scoredShare - t.missingSlack {
                problems.append(String(format: "%@: scored share %.3f below baseline %.3f", b.name, r.scoredShare,
                                       b.scoredShare))
            }
        }
        let known = Set(sets.map(\.name))
        for r in run where !known.contains(r.name) {
            problems.append("\(r.name): not in the baseline (regenerate it with --write-baseline)")
        }
        return problems
    }
}
