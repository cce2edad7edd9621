import BlueDotCore
/// Scores a location stream against ground truth with the protocol of `../shared/data/README.md` (docs/evaluation.md restates it).
///
/// Per truth point (t, target), the protocol picks one fix of that target (see `ScoringProtocol`); the error is
/// the horizontal distance between the fix's (x, y) and the true (x, y). A truth point with no usable fix counts
/// as missing and stays out of the statistics. Among fixes with equal times, "latest" means the last in input
/// order and "first" the first in input order.
public enum Evaluator {
    /// Scores `fixes` against `truth` and summarises.
    public static func evaluate(fixes: [Location], truth: [TruthPoint],
                                scoring: ScoringProtocol = .movingDefault) -> EvaluationReport {
        let scored = score(fixes: fixes, truth: truth, scoring: scoring)
        return EvaluationReport(scoring: scoring, total: truth.count, points: scored)
    }

    /// The scored points, in truth order; missing points are left out.
    public static func score(fixes: [Location], truth: [TruthPoint],
                             scoring: ScoringProtocol = .movingDefault) -> [ScoredPoint] {
        var byTarget: [String: [Location]] = [:]
        for fix in fixes { byTarget[fix.targetID, default: []].append(fix) }
        for key in byTarget.keys {
            // Stable sort by time: equal times keep input order.
            byTarget[key] = byTarget[key]!.enumerated()
                .sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }
                .map(\.element)
        }
        var points: [ScoredPoint] = []
        points.reserveCapacity(truth.count)
        for point in truth {
            guard let track = byTarget[point.target], let fix = pick(track, for: point.t, scoring: scoring) else {
                continue
            }
            let dx = fix.x - point.x
            let dy = fix.y - point.y
            points.append(ScoredPoint(truth: point, fix: fix, errorMeters: (dx * dx + dy * dy).squareRoot()))
        }
        return points
    }

    /// The fix the protocol scores at time `t`, from one target's fixes sorted by time.
    static func pick(_ track: [Location], for t: Double, scoring: ScoringProtocol) -> Location? {
        let slack = ScoringProtocol.timeSlackSeconds
        switch scoring {
        case .moving(let tolerance, let maxAge):
            // Latest fix with fix.t <= t + tolerance.
            let end = firstIndex(in: track) { $0.timestamp > t + tolerance + slack }
            guard end > 0 else { return nil }
            let fix = track[end - 1]
            return t - fix.timestamp <= maxAge + slack ? fix : nil
        case .stationary:
            // First fix with fix.t >= t, else the latest earlier one.
            let start = firstIndex(in: track) { $0.timestamp >= t - slack }
            if start < track.count { return track[start] }
            return track.last
        }
    }

    /// The first index whose fix satisfies `predicate`, which must be false then true along the track.
    private static func firstIndex(in track: [Location], where predicate: (Location) -> Bool) -> Int {
        var low = 0
        var high = track.count
        while low < high {
            let mid = (low + high) / 2
            if predicate(track[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
