import FoundationEssentials
import Glibc

/// A single position fix from the RSSI of the anchors heard: robust weighted nonlinear least squares.
///
/// Residuals are in dB against the log-distance model (so each anchor is weighted by its shadowing sigma and
/// near anchors, whose RSSI changes fastest with distance, pull hardest), Huber-weighted, solved by
/// Levenberg-Marquardt inside the venue bounds (`PositionSolver`). A weak prior keeps one or two anchors well
/// posed: by default the venue as a uniform area (mean its centre, variance width²/12 per axis), so the
/// covariance and the 68% radius stay large and honest instead of the solver failing.
public struct Trilaterator: Sendable {
    /// A fix with its uncertainty.
    public struct Fix: Sendable {
        /// Position, metres.
        public var x: Double, y: Double
        /// Horizontal covariance, m².
        public var covariance: Matrix
        /// The 68% horizontal radius of the covariance, metres.
        public var radius68: Double { AccuracyRadius.radius68(covariance) }
        /// IRLS weights per measurement.
        public var weights: [Double]
        /// The objective at the fix: Σ ρ(rᵢ) plus the prior's ½ eᵀΛe (≈ ½ χ² of the residuals).
        public var cost: Double = 0
    }

    /// The solver (loss, bounds).
    public var solver: PositionSolver
    /// Prior mean and covariance of the position when the caller gives none.
    public var priorMean: [Double]
    /// Prior covariance (diagonal) of the position.
    public var priorVariance: [Double]

    /// Creates a trilaterator for a venue's bounds, or around the anchors when it has none.
    public init(bounds: Venue.Bounds?, anchors: [Anchor], loss: RobustLoss = .huber(2)) {
        solver = PositionSolver(loss: loss, bounds: bounds)
        let area = bounds ?? Trilaterator.anchorArea(anchors)
        let w = area.maxX - area.minX, h = area.maxY - area.minY
        priorMean = [0.5 * (area.minX + area.maxX), 0.5 * (area.minY + area.maxY)]
        priorVariance = [max(w * w / 12, 1), max(h * h / 12, 1)]
    }

    /// The anchors' bounding box grown by 5 m (where targets can be heard), or a 20 m square at the origin.
    static func anchorArea(_ anchors: [Anchor]) -> Venue.Bounds {
        guard let first = anchors.first else { return Venue.Bounds(minX: -10, minY: -10, maxX: 10, maxY: 10) }
        var b = Venue.Bounds(minX: first.x, minY: first.y, maxX: first.x, maxY: first.y)
        for a in anchors {
            b.minX = min(b.minX, a.x); b.maxX = max(b.maxX, a.x)
            b.minY = min(b.minY, a.y); b.maxY = max(b.maxY, a.y)
        }
        return Venue.Bounds(minX: b.minX - 5, minY: b.minY - 5, maxX: b.maxX + 5, maxY: b.maxY + 5)
    }

    /// Solves for the position; starts from the prior mean and from the RSSI-weighted anchor centroid and keeps
    /// the better optimum (the objective is not convex). Nil only when there are no measurements.
    public func locate(_ measurements: [RSSIMeasurement]) -> Fix? {
        guard !measurements.isEmpty else { return nil }
        let Λ = Matrix.diagonal(priorVariance.map { 1 / $0 })
        var best = solver.solve(measurements, priorMean: priorMean, priorInformation: Λ)
        let other = solver.solve(measurements, priorMean: priorMean, priorInformation: Λ,
                                 start: Trilaterator.weightedCentroid(measurements))
        if other.cost < best.cost { best = other }
        return Fix(x: best.state[0], y: best.state[1], covariance: best.covariance, weights: best.weights,
                   cost: best.cost)
    }

    /// The anchors' centroid weighted by received power (mW), a robust starting point.
    public static func weightedCentroid(_ measurements: [RSSIMeasurement]) -> [Double] {
        var sw = 0.0, sx = 0.0, sy = 0.0
        var top = -Double.infinity
        for i in measurements.indices { top = max(top, measurements[i].rssiDBm) }
        for i in measurements.indices {
            let w = pow(10, (measurements[i].rssiDBm - top) / 10)
            sw += w; sx += w * measurements[i].anchorX; sy += w * measurements[i].anchorY
        }
        return [sx / sw, sy / sw]
    }
}
