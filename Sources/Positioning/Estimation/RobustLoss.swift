import FoundationEssentials
import Glibc

/// Robust losses for M-estimation by iteratively reweighted least squares.
///
/// Huber, "Robust Estimation of a Location Parameter", Ann. Math. Statist. 35 (1964); the weights are the
/// IRLS weights ψ(r)/r (Hampel et al., *Robust Statistics*, 1986, §2.3).
public enum RobustLoss: Sendable, Hashable {
    /// Plain least squares.
    case squared
    /// Huber's loss with threshold k (in sigmas): quadratic inside, linear outside.
    case huber(Double)
    /// A Student-t loss with ν degrees of freedom, `ρ(r) = (ν/2) log(1 + r²/ν)`: the t log-density scaled so
    /// that it is ½r² near zero; redescending, so a gross outlier (a body-shadowed anchor) loses its pull.
    case studentT(Double)

    /// The loss ρ(r) of a normalized residual (½r² inside the threshold).
    public func loss(_ r: Double) -> Double {
        switch self {
        case .squared:
            return 0.5 * r * r
        case .huber(let k):
            let a = abs(r)
            return a <= k ? 0.5 * r * r : k * a - 0.5 * k * k
        case .studentT(let ν):
            return 0.5 * ν * log1p(r * r / ν)
        }
    }

    /// The IRLS weight ψ(r)/r of a normalized residual, in (0, 1].
    public func weight(_ r: Double) -> Double {
        switch self {
        case .squared:
            return 1
        case .huber(let k):
            let a = abs(r)
            return a <= k ? 1 : k / a
        case .studentT(let ν):
            return 1 / (1 + r * r / ν)
        }
    }
}
