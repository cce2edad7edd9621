import FoundationEssentials
import Glibc

/// The radius of the circle centred on the mean that holds a given share of a 2-D Gaussian.
///
/// For covariance eigenvalues λ₁ ≥ λ₂ the probability inside radius r is
/// `P(r) = 1/(2π√(λ₁λ₂)) ∫₀^{2π} (1 − exp(−r² a(θ)/2)) / a(θ) dθ`, `a(θ) = cos²θ/λ₁ + sin²θ/λ₂`
/// (integrating the density in polar coordinates). For a circular Gaussian this reduces to the Rayleigh
/// radius `σ √(−2 ln(1 − p))` (1.5096 σ at 68%); for an elongated ellipse it tends to the 1-D quantile
/// `0.994 √λ₁`. The radius over √λ₁ depends on λ₂/λ₁ only, so it is tabulated once and interpolated.
public enum AccuracyRadius {
    /// The probability of the horizontal accuracy convention (Android, Core Location).
    public static let probability = 0.68

    /// Table of r/√λ₁ at ratios λ₂/λ₁ = i/(count−1).
    private static let table: [Double] = (0...64).map { i in
        radiusOverSqrtMajor(ratio: Double(i) / 64, probability: probability)
    }

    /// The 68% radius of a horizontal covariance [[sxx, sxy], [sxy, syy]], metres.
    public static func radius68(sxx: Double, sxy: Double, syy: Double) -> Double {
        let (λ1, λ2) = eigenvalues(sxx: sxx, sxy: sxy, syy: syy)
        guard λ1 > 0, λ1.isFinite else { return 0 }
        let u = max(0, min(1, λ2 / λ1)) * 64
        let i = min(Int(u), 63)
        let f = u - Double(i)
        return ((1 - f) * table[i] + f * table[i + 1]) * λ1.squareRoot()
    }

    /// The 68% radius of the position block (first two entries) of a covariance.
    public static func radius68(_ P: Matrix) -> Double {
        radius68(sxx: P[0, 0], sxy: P[0, 1], syy: P[1, 1])
    }

    /// The 68% radius of the position block of a filter's state covariance.
    public static func radius68(_ P: Matrix4) -> Double {
        radius68(sxx: P[0, 0], sxy: P[0, 1], syy: P[1, 1])
    }

    /// Eigenvalues (larger first) of a symmetric 2 x 2 matrix, clamped at zero.
    public static func eigenvalues(sxx: Double, sxy: Double, syy: Double) -> (Double, Double) {
        let mean = 0.5 * (sxx + syy)
        let d = (0.25 * (sxx - syy) * (sxx - syy) + sxy * sxy).squareRoot()
        return (max(mean + d, 0), max(mean - d, 0))
    }

    /// The probability inside radius r of a zero-mean Gaussian with eigenvalues λ₁ = 1 and λ₂ = ratio.
    public static func probabilityInside(radius r: Double, ratio: Double) -> Double {
        if ratio < 1e-12 {
            // Degenerate: a 1-D Gaussian of unit variance, P(|x| <= r) = erf(r/√2).
            return erf(r / 2.0.squareRoot())
        }
        // The integrand is smooth and periodic: the trapezoid rule converges geometrically.
        let steps = 256
        var sum = 0.0
        for k in 0..<steps {
            let θ = 2 * Double.pi * (Double(k) + 0.5) / Double(steps)
            let c = cos(θ), s = sin(θ)
            let a = c * c + s * s / ratio
            sum += (1 - exp(-0.5 * r * r * a)) / a
        }
        return sum * (2 * Double.pi / Double(steps)) / (2 * Double.pi * ratio.squareRoot())
    }

    /// Solves P(r) = p for r by bisection, with λ₁ = 1.
    public static func radiusOverSqrtMajor(ratio: Double, probability p: Double) -> Double {
        var lo = 0.0, hi = 6.0
        for _ in 0..<60 {
            let mid = 0.5 * (lo + hi)
            if probabilityInside(radius: mid, ratio: ratio) < p { lo = mid } else { hi = mid }
        }
        return 0.5 * (lo + hi)
    }
}
