import BlueDotCore

/// How sure a set's figures are: percentile intervals from a block bootstrap over its scored points.
///
/// The errors of one track are not independent draws. A walker's fix that is 2 m off now is 2 m off a second from
/// now (on the shared sets' held-out replays, the errors' autocorrelation is 0.5-0.9 at 1 s, 0.3-0.8 at 2 s, and
/// within ±0.2 of zero at 10 s on all but one of eight walks and runs: docs/evaluation.md); a phone's scans at one
/// surveyed point share that point's shadowing. Resampling single points would treat a minute of walking as hundreds
/// of independent tries and give intervals far too narrow. The points are cut into blocks that are close to
/// independent of each other, and whole blocks are resampled with replacement
/// (the non-overlapping block bootstrap: Carlstein, "The use of subseries values for estimating the variance of a
/// general statistic from a stationary sequence", Annals of Statistics 14, 1986; Künsch, Annals of Statistics 17,
/// 1989; for the choice of the block, Lahiri, *Resampling Methods for Dependent Data*, Springer 2003):
/// - moving targets: per target, `blockSeconds` of truth time (10 s, about twice the lag at which the errors stop
///   being correlated);
/// - static scans: per surveyed point, every scan whose truth agrees within 1 cm (the points the held-out folds are
///   made of).
///
/// Several runs over the same truth (a set replayed with and without a survey) are resampled with the same blocks,
/// so a statistic comparing them (the ratio of their medians) is paired. The generator is seeded: the same points
/// give the same intervals.
public enum BlockBootstrap {
    /// The block length and the number of resamples `interval` uses unless told otherwise.
    public enum Defaults {
        /// Seconds of truth time per block of a moving target.
        public static let blockSeconds = 10.0
        /// Resamples per interval.
        public static let resamples = 1000
    }

    /// A percentile interval.
    public struct Interval: Sendable, Hashable {
        /// Its ends.
        public var low: Double, high: Double
    }

    /// Where a truth point's block is: per target, the block of `blockSeconds` its time falls in after the
    /// target's first truth time (moving), or its position in whole centimetres (static).
    struct BlockKey: Hashable {
        var target: String
        var a: Int64, b: Int64
    }

    static func key(_ p: TruthPoint, scoring: ScoringProtocol, origin: Double, blockSeconds: Double) -> BlockKey {
        switch scoring {
        case .moving:
            return BlockKey(target: p.target, a: Int64(((p.t - origin) / blockSeconds).rounded(.down)), b: 0)
        case .stationary:
            return BlockKey(target: "", a: Int64((p.x * 100).rounded()), b: Int64((p.y * 100).rounded()))
        }
    }

    /// The `level` interval (0.9: from the 5th to the 95th percentile of the resampled values) of `statistic`,
    /// computed on each run's points; nil when the runs have fewer than two blocks or the statistic is undefined
    /// on most resamples. `statistic` gets one array of points per run, in the order given.
    public static func interval(_ runs: [[ScoredPoint]], scoring: ScoringProtocol, level: Double = 0.9,
                                blockSeconds: Double = Defaults.blockSeconds, resamples: Int = Defaults.resamples,
                                seed: UInt64 = 1, statistic: ([[ScoredPoint]]) -> Double?) -> Interval? {
        var origins: [String: Double] = [:]
        for run in runs {
            for p in run { origins[p.truth.target] = min(origins[p.truth.target] ?? .infinity, p.truth.t) }
        }
        // The blocks in the order first met, each holding every run's points of it.
        var index: [BlockKey: Int] = [:]
        var blocks: [[[ScoredPoint]]] = []
        for (r, run) in runs.enumerated() {
            for p in run {
                let k = key(p.truth, scoring: scoring, origin: origins[p.truth.target] ?? p.truth.t,
                            blockSeconds: blockSeconds)
                let i: Int
                if let known = index[k] {
                    i = known
                } else {
                    i = blocks.count
                    index[k] = i
                    blocks.append(Array(repeating: [], count: runs.count))
                }
                blocks[i][r].append(p)
            }
        }
        guard blocks.count >= 2, resamples > 0 else { return nil }
        var rng = Xoshiro256StarStar(seed: seed)
        var values: [Double] = []
        values.reserveCapacity(resamples)
        var sample = Array(repeating: [ScoredPoint](), count: runs.count)
        for _ in 0..<resamples {
            for r in sample.indices { sample[r].removeAll(keepingCapacity: true) }
            for _ in blocks.indices {
                let b = blocks[Int.random(in: 0..<blocks.count, using: &rng)]
                for r in b.indices { sample[r] += b[r] }
            }
            if let v = statistic(sample), v.isFinite { values.append(v) }
        }
        guard values.count * 2 > resamples else { return nil }
        values.sort()
        let tail = (1 - min(max(level, 0), 1)) / 2 * 100
        guard let low = Percentile.of(sorted: values, tail), let high = Percentile.of(sorted: values, 100 - tail) else {
            return nil
        }
        return Interval(low: low, high: high)
    }

    /// The median error of one run's points (nil for none).
    public static func median(_ points: [ScoredPoint]) -> Double? {
        Percentile.of(sorted: points.map(\.errorMeters).sorted(), 50)
    }

    /// The share of one run's points inside their fix's radius (nil for none).
    public static func coverage(_ points: [ScoredPoint]) -> Double? {
        points.isEmpty ? nil : Double(points.count(where: \.isCovered)) / Double(points.count)
    }

    /// The 90% intervals of a report's median, p90 and coverage68, as `bluedot evaluate --intervals` prints them.
    public struct ReportIntervals: Sendable, Hashable {
        public var median: Interval?, p90: Interval?, coverage68: Interval?
    }

    /// The 90% intervals of `report`'s median, p90 and coverage68 (nil each where there are fewer than two blocks):
    /// each resample scored as `EvaluationReport` scores the report.
    public static func intervals(of report: EvaluationReport, blockSeconds: Double = Defaults.blockSeconds)
        -> ReportIntervals {
        func of(_ figure: @escaping (EvaluationReport) -> Double?) -> Interval? {
            interval([report.points], scoring: report.scoring, blockSeconds: blockSeconds) {
                figure(EvaluationReport(scoring: report.scoring, total: report.total, points: $0[0]))
            }
        }
        return ReportIntervals(median: of(\.median), p90: of(\.p90), coverage68: of(\.coverage68))
    }
}
