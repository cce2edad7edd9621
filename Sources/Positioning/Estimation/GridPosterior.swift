import FoundationEssentials
import Glibc

/// The exact posterior of the position on a grid over the venue, for the cases a Gaussian serves badly.
///
/// With a uniform prior over the bounds and independent Gaussian RSSI errors (robustified by the same Huber
/// loss as the solver), `p(x | z) ∝ exp(−Σᵢ ρ((zᵢ − hᵢ(x)) / σᵢ))`, evaluated at the centre of every cell. Its
/// mean is the minimum mean-square-error estimate and its covariance the honest spread: with one anchor the
/// posterior is a ring whose mean lies near the anchor, with two a pair of arcs; a Gauss-Newton solver would
/// pick one point of the ring and report a small covariance around it. (Grid-based Bayesian estimation: Arulampalam
/// et al., "A tutorial on particle filters", IEEE TSP 50(2), 2002, §IV.B.)
public struct GridPosterior: Sendable {
    /// Where the target can be.
    public let bounds: Venue.Bounds
    /// Cell size, metres.
    public let cellMeters: Double
    /// The robust loss on normalized residuals.
    public let loss: RobustLoss
    /// Whether the point estimate is the posterior's spatial median (minimizing the expected distance error)
    /// rather than its mean (minimizing the expected squared error); the covariance is the spread around it.
    public var usesSpatialMedian = false
    /// Prior standard deviation of an offset common to every anchor's RSSI (the device's transmit power or
    /// gain, its orientation and the body beside it), dB; nil: no such offset. It is integrated out under this
    /// prior, like the body-shadow term.
    public var commonOffsetSigmaDB: Double?
    /// Prior standard deviation of each component of a body-shadow term, dB; nil: none. A device carried by a
    /// person is heard louder from the anchors it faces than from those behind the body: anchor i's RSSI gains
    /// `a cos φᵢ + b sin φᵢ`, φᵢ the bearing from the device to the anchor, with (a, b) unknown per fix
    /// (the carrier's heading) and integrated out under this prior.
    public var bodyShadowSigmaDB: Double?
    private let xs: [Double]
    private let ys: [Double]

    /// Creates a grid over the bounds with cells of about `cellMeters` (at most 200 per axis).
    public init(bounds: Venue.Bounds, cellMeters: Double = 0.25, loss: RobustLoss = .huber(2)) {
        self.bounds = bounds
        self.loss = loss
        let w = bounds.maxX - bounds.minX, h = bounds.maxY - bounds.minY
        let nx = min(max(Int((w / cellMeters).rounded(.up)), 1), 200)
        let ny = min(max(Int((h / cellMeters).rounded(.up)), 1), 200)
        self.cellMeters = max(w / Double(nx), h / Double(ny))
        xs = (0..<nx).map { bounds.minX + (Double($0) + 0.5) * w / Double(nx) }
        ys = (0..<ny).map { bounds.minY + (Double($0) + 0.5) * h / Double(ny) }
    }

    /// The posterior mean and covariance (including the cell's own uniform spread); nil without measurements.
    ///
    /// The random effects (a common offset, a body-shadow term) enter linearly: with design rows dᵢ, prior
    /// precision W and weights wᵢ = 1/σᵢ², each cell uses `û = M⁻¹ Σ wᵢ rᵢ dᵢ`, `M = W + Σ wᵢ dᵢ dᵢᵀ`, and scores
    /// `−½ ûᵀWû − Σ ρ((rᵢ − dᵢᵀû)/σᵢ) − ½ log det M`: for Gaussian errors the exact marginal likelihood (the
    /// determinant matters when dᵢ depends on the cell, as the bearings do).
    public func estimate(_ measurements: [RSSIMeasurement]) -> (x: Double, y: Double, covariance: Matrix)? {
        guard !measurements.isEmpty else { return nil }
        var logp = [Double](repeating: 0, count: xs.count * ys.count)
        var best = -Double.infinity
        var effects = RandomEffects(offsetSigmaDB: commonOffsetSigmaDB, bodyShadowSigmaDB: bodyShadowSigmaDB)
        var r = [Double](repeating: 0, count: measurements.count), sigma = r
        // The measurements are read in place (`RSSIMeasurement.residual(_:x:y:)`): this runs for every cell.
        measurements.withUnsafeBufferPointer { ms in
            for (j, y) in ys.enumerated() {
                for (i, x) in xs.enumerated() {
                    var l = 0.0
                    effects.reset()
                    for m in ms.indices {
                        (r[m], sigma[m]) = RSSIMeasurement.residual(ms.baseAddress! + m, x: x, y: y)
                        // A sigma that varies with the place (a bias field's variance) normalizes the likelihood.
                        if ms[m].field != nil { l -= log(sigma[m]) }
                        effects.add(residual: r[m], sigma: sigma[m], dx: ms[m].anchorX - x, dy: ms[m].anchorY - y)
                    }
                    l += effects.solve()
                    for m in ms.indices {
                        let e = effects.effect(dx: ms[m].anchorX - x, dy: ms[m].anchorY - y)
                        l -= loss.loss((r[m] - e) / sigma[m])
                    }
                    logp[j * xs.count + i] = l
                    best = max(best, l)
                }
            }
        }
        var sw = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0, syy = 0.0
        for (j, y) in ys.enumerated() {
            for (i, x) in xs.enumerated() {
                let w = exp(logp[j * xs.count + i] - best)
                sw += w
                sx += w * x
                sy += w * y
                sxx += w * x * x
                sxy += w * x * y
                syy += w * y * y
            }
        }
        let mx = sx / sw, my = sy / sw
        let cell = cellMeters * cellMeters / 12
        var C = Matrix(rows: 2, columns: 2, entries: [sxx / sw - mx * mx + cell, sxy / sw - mx * my,
                                                      sxy / sw - mx * my, syy / sw - my * my + cell])
        guard usesSpatialMedian else { return (mx, my, C.symmetrized) }
        let (px, py) = spatialMedian(logp: logp, best: best, from: (mx, my))
        // Spread around the reported point: Σ + (m − p)(m − p)ᵀ.
        let dx = mx - px, dy = my - py
        C[0, 0] += dx * dx
        C[0, 1] += dx * dy
        C[1, 0] += dx * dy
        C[1, 1] += dy * dy
        return (px, py, C.symmetrized)
    }

    /// The weighted spatial (geometric) median of the cells by Weiszfeld's iteration (Weiszfeld, Tohoku Math. J.
    /// 43, 1937), started at the mean: `p ← Σ (wᵢ/‖cᵢ − p‖) cᵢ / Σ (wᵢ/‖cᵢ − p‖)`.
    private func spatialMedian(logp: [Double], best: Double, from start: (Double, Double)) -> (Double, Double) {
        var cells: [(x: Double, y: Double, w: Double)] = []
        for (j, y) in ys.enumerated() {
            for (i, x) in xs.enumerated() {
                let w = exp(logp[j * xs.count + i] - best)
                if w > 1e-6 { cells.append((x, y, w)) }
            }
        }
        var (px, py) = start
        let eps = 0.25 * cellMeters
        for _ in 0..<30 {
            var sx = 0.0, sy = 0.0, s = 0.0
            for c in cells {
                let d = max(((c.x - px) * (c.x - px) + (c.y - py) * (c.y - py)).squareRoot(), eps)
                sx += c.w / d * c.x
                sy += c.w / d * c.y
                s += c.w / d
            }
            let (nx, ny) = (sx / s, sy / s)
            let moved = abs(nx - px) + abs(ny - py)
            (px, py) = (nx, ny)
            if moved < 1e-3 { break }
        }
        return (px, py)
    }
}
