import Foundation

/// The predicted accuracy over a venue: one grid point per cell centre with its bound and the anchors heard.
public struct AccuracyMap: Sendable, Hashable {
    /// One grid point.
    public struct Point: Sendable, Hashable, Codable {
        /// Cell centre, metres.
        public var x: Double, y: Double
        /// The CRLB (sqrt trace J⁻¹), metres; nil where fewer than 2 anchors are heard or J is singular.
        public var crlb: Double?
        /// Anchors heard above the sensitivity threshold.
        public var anchors: Int

        enum CodingKeys: String, CodingKey { case x, y, crlb, anchors }

        /// Encodes every key, `crlb` as an explicit null when there is no bound.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(x, forKey: .x)
            try c.encode(y, forKey: .y)
            try c.encode(crlb, forKey: .crlb)
            try c.encode(anchors, forKey: .anchors)
        }
    }

    /// The grid's area.
    public var minX: Double, minY: Double, maxX: Double, maxY: Double
    /// Cell size, metres.
    public var cellMeters: Double
    /// Columns and rows.
    public var columns: Int, rows: Int
    /// Points row by row (y outer, x inner), only those inside the outline when there is one.
    public var points: [Point]
    /// The value a missing bound counts as in percentiles (the area's diagonal), metres.
    public var capMeters: Double

    /// The bound of a point for statistics: its CRLB, capped at `capMeters`, the cap where missing.
    public func capped(_ p: Point) -> Double { min(p.crlb ?? capMeters, capMeters) }

    /// The p-th percentile (0...100, nearest rank) of the capped bounds.
    public func percentile(_ p: Double) -> Double {
        let values = points.map(capped).sorted()
        guard !values.isEmpty else { return capMeters }
        let rank = Int((p / 100 * Double(values.count)).rounded(.up))
        return values[min(max(rank, 1), values.count) - 1]
    }

    /// Share of points where at least `k` anchors are heard.
    public func share(withAtLeast k: Int) -> Double {
        points.isEmpty ? 0 : Double(points.filter { $0.anchors >= k }.count) / Double(points.count)
    }
}
