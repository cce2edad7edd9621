import FoundationEssentials
import Glibc

extension ConstantVelocityKalman {
    /// Scales the velocity down to at most `maximum` m/s (a walker or robot does not go faster).
    public mutating func capSpeed(_ maximum: Double) {
        let s = speed
        guard s > maximum, s > 0 else { return }
        x[2] *= maximum / s
        x[3] *= maximum / s
    }

    /// Projects the position into the bounds (the covariance is kept: the constraint is not a measurement).
    public mutating func clampPosition(to bounds: Venue.Bounds?) {
        guard let bounds else { return }
        x[0] = min(max(x[0], bounds.minX), bounds.maxX)
        x[1] = min(max(x[1], bounds.minY), bounds.maxY)
    }

    /// Truncates the Gaussian to the bounds, one axis at a time, by moment matching.
    ///
    /// Simon and Simon, "Constrained Kalman filtering via density function truncation for turbofan engine
    /// health estimation", Int. J. Systems Science 41(2), 2010: the marginal of axis i is replaced by the mean
    /// and variance of the normal truncated to [a, b] (with α = (a − μ)/σ, β = (b − μ)/σ, Z = Φ(β) − Φ(α):
    /// `μ' = μ + σ (φ(α) − φ(β)) / Z`, `σ'² = σ² [1 + (α φ(α) − β φ(β)) / Z − ((φ(α) − φ(β)) / Z)²]`), and the
    /// other states follow through their covariance with it, as in a Gaussian conditioning step. A mean well
    /// inside the bounds is left as it is; one far outside lands on the bound.
    public mutating func truncate(to bounds: Venue.Bounds?) {
        guard let bounds else { return }
        for (i, (a, b)) in [(bounds.minX, bounds.maxX), (bounds.minY, bounds.maxY)].enumerated() {
            let σ2 = P[i, i]
            guard σ2 > 0 else { continue }
            let σ = σ2.squareRoot(), μ = x[i]
            let α = (a - μ) / σ, β = (b - μ) / σ
            // Over 8.5 σ inside both bounds the truncation moves nothing (its terms are below 10⁻¹⁶ σ).
            if α < -8.5 && β > 8.5 { continue }
            let Z = Self.Φ(β) - Self.Φ(α)
            guard α < 8 || β > -8, Z > 1e-9 else {
                clampPosition(to: bounds)
                continue
            }
            let φa = α.isInfinite ? 0 : Self.φ(α), φb = β.isInfinite ? 0 : Self.φ(β)
            let shift = σ * (φa - φb) / Z
            let ratio = max(1 + (α * φa - β * φb) / Z - ((φa - φb) / Z) * ((φa - φb) / Z), 1e-6)
            // Conditioning on the axis: x_j += (P_ji / P_ii) δμ, P ← P − (1 − ratio) P_:i P_i: / P_ii.
            let column = SIMD4(P[0, i], P[1, i], P[2, i], P[3, i])
            for j in 0..<4 { x[j] += column[j] / σ2 * shift }
            for j in 0..<4 {
                for k in 0..<4 { P[j, k] -= (1 - ratio) * column[j] * column[k] / σ2 }
            }
            P.symmetrize()
        }
        clampPosition(to: bounds)
    }

    /// The standard normal density.
    static func φ(_ u: Double) -> Double { exp(-0.5 * u * u) / (2 * Double.pi).squareRoot() }

    /// The standard normal distribution function.
    static func Φ(_ u: Double) -> Double { 0.5 * erfc(-u / 2.0.squareRoot()) }
}
