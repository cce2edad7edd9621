import Foundation

/// The 2×2 Fisher information of RSSI measurements about a target's horizontal position, and its Cramér-Rao bound.
///
/// For anchor i at (xᵢ, yᵢ, zᵢ), the model is `rssiᵢ = P₀ᵢ − 10 nᵢ log10 dᵢ + εᵢ`, εᵢ ~ N(0, σᵢ²), with
/// `dᵢ² = (x − xᵢ)² + (y − yᵢ)² + (h − zᵢ)²` for a target at height h. The gradient of the mean is
///
///     ∇ᵢ = −(10 nᵢ / ln 10) · (x − xᵢ, y − yᵢ) / dᵢ²
///
/// and independent Gaussian measurements give `J = Σᵢ ∇ᵢ ∇ᵢᵀ / σᵢ²` (Kay, *Fundamentals of Statistical Signal
/// Processing: Estimation Theory*, 1993, §3.9; Patwari et al., "Relative location estimation in wireless sensor
/// networks", IEEE Trans. Signal Processing 51(8), 2003, eq. 9 for the RSS case). Any unbiased estimator has
/// covariance ⪰ J⁻¹, so the RMS horizontal error is at least `sqrt(trace J⁻¹)` — the CRLB reported here, in metres.
/// One packet per anchor: more packets per fix shrink it by √k.
public struct FisherInformation: Sendable, Hashable {
    /// The symmetric matrix entries J = [jxx jxy; jxy jyy].
    public var jxx = 0.0, jxy = 0.0, jyy = 0.0
    /// Anchors that contributed.
    public var anchors = 0

    /// An empty information (no anchors).
    public init() {}

    /// Adds one anchor's information about the target at (x, y, h).
    public mutating func add(_ a: PlanAnchor, x: Double, y: Double, height h: Double) {
        let dx = x - a.x, dy = y - a.y, dz = h - a.z
        let d2 = max(dx * dx + dy * dy + dz * dz, 1e-6)
        let b = 10 * a.model.pathLossExponent / log(10.0)
        let gx = b * dx / d2, gy = b * dy / d2
        let w = 1 / (a.model.shadowingSigmaDB * a.model.shadowingSigmaDB)
        jxx += w * gx * gx
        jxy += w * gx * gy
        jyy += w * gy * gy
        anchors += 1
    }

    /// The sum of two informations (independent measurements add).
    public static func + (l: FisherInformation, r: FisherInformation) -> FisherInformation {
        var s = l
        s.jxx += r.jxx; s.jxy += r.jxy; s.jyy += r.jyy; s.anchors += r.anchors
        return s
    }

    /// sqrt(trace J⁻¹) in metres, nil with fewer than two anchors or a (near-)singular J.
    ///
    /// For a 2×2 matrix, trace J⁻¹ = (jxx + jyy) / det J. Singular: det J ≤ 1e-9 · (jxx + jyy)², i.e. the
    /// anchors are (nearly) collinear with the target so one direction carries no information.
    public var crlbMeters: Double? {
        guard anchors >= 2 else { return nil }
        let trace = jxx + jyy
        let det = jxx * jyy - jxy * jxy
        guard trace > 0, det > 1e-9 * trace * trace else { return nil }
        return (trace / det).squareRoot()
    }
}
