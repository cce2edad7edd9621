import Foundation

/// The JSON report of `plan`: every grid point, the summary, the suggestions and the anchor ranking.
///
/// `points[i].crlb` is null where fewer than two anchors are heard above the sensitivity threshold or the
/// Fisher information is singular (anchors collinear with the point); such points count as `capMeters` (the
/// area's diagonal) in `summary.median` and `summary.p90`.
public struct PlanReport: Sendable, Hashable, Codable {
    /// Summary statistics of the map.
    public struct Summary: Sendable, Hashable, Codable {
        /// Median predicted error (CRLB), metres.
        public var median: Double
        /// 90th percentile, metres.
        public var p90: Double
        /// Share of grid points hearing at least three anchors (the coverage).
        public var coverage: Double
        /// Share of grid points with a finite bound (≥ 2 anchors, non-singular).
        public var located: Double
        /// Grid points.
        public var points: Int
        /// The value missing bounds count as, metres.
        public var capMeters: Double
    }

    /// The parameters of the run.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Grid cell, metres.
        public var grid: Double
        /// Target height, metres.
        public var height: Double
        /// Sensitivity threshold, dBm.
        public var sensitivity: Double
        /// Shadowing sigma override, dB (nil: each anchor's own).
        public var sigma: Double?
        /// Area [[minX, minY], [maxX, maxY]].
        public var bounds: [[Double]]

        /// Creates the parameters.
        public init(grid: Double, height: Double, sensitivity: Double, sigma: Double?, bounds: [[Double]]) {
            self.grid = grid
            self.height = height
            self.sensitivity = sensitivity
            self.sigma = sigma
            self.bounds = bounds
        }
    }

    /// Run parameters.
    public var parameters: Parameters
    /// Summary of the map with the existing anchors.
    public var summary: Summary
    /// Every grid point.
    public var points: [AccuracyMap.Point]
    /// Proposed new beacons, in order.
    public var suggestions: [AccuracyPlanner.Suggestion]
    /// Existing anchors, most costly to remove first.
    public var anchorRanking: [AccuracyPlanner.AnchorCost]

    /// Builds the report of a map.
    public init(map: AccuracyMap, parameters: Parameters, suggestions: [AccuracyPlanner.Suggestion],
                anchorRanking: [AccuracyPlanner.AnchorCost]) {
        self.parameters = parameters
        let located = map.points.filter { $0.crlb != nil }.count
        summary = Summary(median: map.percentile(50), p90: map.percentile(90), coverage: map.share(withAtLeast: 3),
                          located: map.points.isEmpty ? 0 : Double(located) / Double(map.points.count),
                          points: map.points.count, capMeters: map.capMeters)
        points = map.points
        self.suggestions = suggestions
        self.anchorRanking = anchorRanking
    }

    /// Pretty-printed JSON with sorted keys, ending in a newline.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// A few lines for the terminal.
    public var text: String {
        var lines = [String(format: "predicted error (CRLB): median %.2f m, p90 %.2f m; coverage (>= 3 anchors) %.0f%%, "
                            + "located %.0f%% of %d points", summary.median, summary.p90, summary.coverage * 100,
                            summary.located * 100, summary.points)]
        for s in suggestions {
            lines.append(String(format: "suggest #%d at (%.2f, %.2f, %.2f): p90 %.2f -> %.2f m, median %.2f -> %.2f m",
                                s.rank, s.x, s.y, s.z, s.p90Before, s.p90After, s.medianBefore, s.medianAfter))
        }
        for c in anchorRanking {
            lines.append(String(format: "without %@: p90 +%.2f m, median +%.2f m, coverage -%.0f%%", c.id,
                                c.p90Increase, c.medianIncrease, c.coverageLoss * 100))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
