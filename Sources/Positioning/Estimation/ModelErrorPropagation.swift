/// The position error that the anchors' model errors cause: the covariance the prior on the models
/// (`AnchorUncertainty`) adds to a fix, and which no amount of averaging removes.
///
/// A model error eᵢ (dB) in anchor i's expected RSSI moves a weighted least-squares fix by
/// `δp = I⁻¹ Σᵢ gᵢ eᵢ / σᵢ`, with gᵢ the gradient of hᵢ/σᵢ at the fix and `I = Σ gᵢ gᵢᵀ + Λ` (Λ the venue
/// prior's information, which bounds the answer where the geometry says nothing). The errors are biases, not
/// noise: the same every tick for the same anchor and place, so a filter that averages ticks does not shrink them,
/// and their covariance is added to the filter's when the radius is reported. With `uᵢ = (1, −Lᵢ)`,
/// `Lᵢ = 10 log10(dᵢ / 4 m)`:
/// - the shared part (one site level and slope, wrong for every anchor alike) gives `M Σₛ Mᵀ` with
///   `M = Σᵢ gᵢ uᵢᵀ / σᵢ` over the anchors that share it;
/// - each anchor's own part gives `gᵢ gᵢᵀ uᵢᵀ Σₒ uᵢ / σᵢ²`;
/// and the covariance is `I⁻¹ (that sum) I⁻¹`.
public enum ModelErrorPropagation {
    /// The covariance (sxx, sxy, syy), m², at (x, y) of a fix from `measurements` whose anchors' models carry
    /// `uncertainties` (same order), under a prior of information `priorInformation` (diagonal, 1/m²).
    public static func covariance(_ measurements: [RSSIMeasurement], uncertainties: [AnchorUncertainty],
                                  x: Double, y: Double, priorInformation: (Double, Double))
        -> (sxx: Double, sxy: Double, syy: Double) {
        var i00 = priorInformation.0, i01 = 0.0, i11 = priorInformation.1
        // M, 2 × 2: rows x and y, columns level and slope.
        var m00 = 0.0, m01 = 0.0, m10 = 0.0, m11 = 0.0
        var b00 = 0.0, b01 = 0.0, b11 = 0.0
        var shared = ModelUncertainty.none
        for k in measurements.indices {
            let u = uncertainties[k]
            let (_, gx, gy) = measurements[k].linearize(x: x, y: y)
            i00 += gx * gx; i01 += gx * gy; i11 += gy * gy
            guard !u.isZero else { continue }
            let sigma = measurements[k].sigmaDB
            let l = ModelUncertainty.logDistance(measurements[k].distanceMeters(x: x, y: y))
            if !u.shared.isZero {
                shared = u.shared
                m00 += gx / sigma; m01 -= gx * l / sigma
                m10 += gy / sigma; m11 -= gy * l / sigma
            }
            let v = u.own.variance(atLogDistance: l) / (sigma * sigma)
            b00 += gx * gx * v; b01 += gx * gy * v; b11 += gy * gy * v
        }
        let sp = shared.levelSigmaDB * shared.levelSigmaDB, sn = shared.exponentSigma * shared.exponentSigma
        b00 += m00 * m00 * sp + m01 * m01 * sn
        b01 += m00 * m10 * sp + m01 * m11 * sn
        b11 += m10 * m10 * sp + m11 * m11 * sn
        let det = i00 * i11 - i01 * i01
        guard det > 0 else { return (0, 0, 0) }
        // I⁻¹ B I⁻¹ for symmetric 2 × 2 matrices.
        let j00 = i11 / det, j01 = -i01 / det, j11 = i00 / det
        let t00 = j00 * b00 + j01 * b01, t01 = j00 * b01 + j01 * b11
        let t10 = j01 * b00 + j11 * b01, t11 = j01 * b01 + j11 * b11
        return (t00 * j00 + t01 * j01, t00 * j01 + t01 * j11, t10 * j01 + t11 * j11)
    }
}
