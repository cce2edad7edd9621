import FoundationEssentials
import Glibc

/// The linear random effects of one grid cell: an RSSI offset common to all anchors and a body-shadow term
/// `a cos φ + b sin φ`, each with a zero-mean Gaussian prior; up to three unknowns, solved by Cholesky.
struct RandomEffects {
    private let offsetPrecision: Double?
    private let shadowPrecision: Double?
    /// Normal matrix M (upper triangle, row-major 3 × 3) and right-hand side, in the order offset, cos, sin.
    private var m = [Double](repeating: 0, count: 9)
    private var v = [Double](repeating: 0, count: 3)
    private var u = [Double](repeating: 0, count: 3)

    init(offsetSigmaDB: Double?, bodyShadowSigmaDB: Double?) {
        offsetPrecision = offsetSigmaDB.map { 1 / ($0 * $0) }
        shadowPrecision = bodyShadowSigmaDB.map { 1 / ($0 * $0) }
    }

    var isEmpty: Bool { offsetPrecision == nil && shadowPrecision == nil }

    mutating func reset() {
        guard !isEmpty else { return }
        for k in 0..<9 { m[k] = 0 }
        for k in 0..<3 { v[k] = 0; u[k] = 0 }
        m[0] = offsetPrecision ?? 1
        m[4] = shadowPrecision ?? 1
        m[8] = shadowPrecision ?? 1
    }

    /// The design row of an anchor at (dx, dy) from the cell: 1, cos φ, sin φ (absent effects give 0).
    private func row(dx: Double, dy: Double) -> (Double, Double, Double) {
        let o = offsetPrecision == nil ? 0.0 : 1.0
        guard shadowPrecision != nil else { return (o, 0, 0) }
        let d = (dx * dx + dy * dy).squareRoot()
        return d > 1e-9 ? (o, dx / d, dy / d) : (o, 0, 0)
    }

    mutating func add(residual r: Double, sigma: Double, dx: Double, dy: Double) {
        guard !isEmpty else { return }
        let w = 1 / (sigma * sigma)
        let (a, b, c) = row(dx: dx, dy: dy)
        m[0] += w * a * a; m[1] += w * a * b; m[2] += w * a * c
        m[4] += w * b * b; m[5] += w * b * c
        m[8] += w * c * c
        v[0] += w * r * a; v[1] += w * r * b; v[2] += w * r * c
    }

    /// Solves for û and returns `−½ ûᵀWû − ½ log det M` (0 without effects).
    mutating func solve() -> Double {
        guard !isEmpty else { return 0 }
        // Cholesky M = L Lᵀ (3 × 3; an absent effect's row is the identity and its right-hand side 0).
        let l00 = m[0].squareRoot()
        let l10 = m[1] / l00, l20 = m[2] / l00
        let l11 = (m[4] - l10 * l10).squareRoot()
        let l21 = (m[5] - l20 * l10) / l11
        let l22 = (m[8] - l20 * l20 - l21 * l21).squareRoot()
        let y0 = v[0] / l00
        let y1 = (v[1] - l10 * y0) / l11
        let y2 = (v[2] - l20 * y0 - l21 * y1) / l22
        u[2] = y2 / l22
        u[1] = (y1 - l21 * u[2]) / l11
        u[0] = (y0 - l10 * u[1] - l20 * u[2]) / l00
        var prior = 0.0
        if let p = offsetPrecision { prior += p * u[0] * u[0] }
        if let p = shadowPrecision { prior += p * (u[1] * u[1] + u[2] * u[2]) }
        return -0.5 * prior - log(l00 * l11 * l22)
    }

    /// The solved effects' contribution to an anchor's RSSI at (dx, dy) from the cell, dB.
    func effect(dx: Double, dy: Double) -> Double {
        guard !isEmpty else { return 0 }
        let (a, b, c) = row(dx: dx, dy: dy)
        return a * u[0] + b * u[1] + c * u[2]
    }
}
