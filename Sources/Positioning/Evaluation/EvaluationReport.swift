/// Accuracy figures of one evaluation: error statistics over the scored points, coverage and missing points.
public struct EvaluationReport: Sendable, Hashable {
    /// The protocol used.
    public let scoring: ScoringProtocol
    /// Truth points in all.
    public let total: Int
    /// The scored points (truth points with a usable fix), in truth order.
    public let points: [ScoredPoint]
    /// Errors of the scored points, ascending, metres.
    public let sortedErrors: [Double]

    /// Summarises the scored points.
    public init(scoring: ScoringProtocol, total: Int, points: [ScoredPoint]) {
        self.scoring = scoring
        self.total = total
        self.points = points
        self.sortedErrors = points.map(\.errorMeters).sorted()
    }

    /// Truth points scored.
    public var scored: Int { points.count }
    /// Truth points without a usable fix.
    public var missing: Int { total - points.count }
    /// Median error (50th percentile, `Percentile.of`), metres; nil when nothing was scored.
    public var median: Double? { Percentile.of(sorted: sortedErrors, 50) }
    /// 90th percentile error, metres.
    public var p90: Double? { Percentile.of(sorted: sortedErrors, 90) }
    /// Largest error, metres.
    public var max: Double? { sortedErrors.last }
    /// Mean error, metres.
    public var mean: Double? {
        sortedErrors.isEmpty ? nil : sortedErrors.reduce(0, +) / Double(sortedErrors.count)
    }
    /// Root mean square error, metres.
    public var rmse: Double? {
        sortedErrors.isEmpty ? nil
            : (sortedErrors.reduce(0) { $0 + $1 * $1 } / Double(sortedErrors.count)).squareRoot()
    }
    /// Share (0 ... 1) of scored points whose error is within their fix's `horizontalAccuracy`.
    public var coverage68: Double? {
        points.isEmpty ? nil : Double(points.count(where: \.isCovered)) / Double(points.count)
    }
}
