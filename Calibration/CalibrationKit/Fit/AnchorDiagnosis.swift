/// The fit of one anchor with the evidence behind its flags (one entry of the fit report).
public struct AnchorDiagnosis: Sendable, Hashable, Codable {
    /// The anchor id.
    public var id: String
    /// Survey samples of this anchor.
    public var samples: Int
    /// The calibrated 1 m RSSI (shrunk toward the site fit), dBm.
    public var measuredPowerDBm: Double
    /// The calibrated path-loss exponent (shrunk toward the site fit).
    public var pathLossExponent: Double
    /// Robust residual sigma of the anchor's samples around its calibrated model, dB.
    public var residualSigmaDB: Double
    /// The anchor's own fit with no pull toward the site (nil without samples): 1 m RSSI, dBm.
    public var freeMeasuredPowerDBm: Double?
    /// The anchor's own fit with no pull toward the site: exponent.
    public var freePathLossExponent: Double?
    /// Median of (measured − site model) over the anchor's samples, dB; strongly negative when blocked.
    public var biasVersusSiteDB: Double?
    /// True when a parameter hit a physical sanity bound.
    public var clamped: Bool
    /// The horizontal position where the samples fit best, when it differs from the venue's.
    public var bestX: Double?, bestY: Double?
    /// Distance from the venue position to the best-fitting one, metres.
    public var shiftMeters: Double?
    /// Residual RMS at the best-fitting position over the one at the venue position (below 1: fits better
    /// elsewhere).
    public var shiftResidualRatio: Double?
    /// The flags raised.
    public var flags: [AnchorFlag]
    /// One sentence per flag: the evidence.
    public var reasons: [String]

    enum CodingKeys: String, CodingKey {
        case id, samples, clamped, flags, reasons, bestX, bestY, shiftMeters, shiftResidualRatio
        case measuredPowerDBm = "measuredPower", pathLossExponent, residualSigmaDB = "residualSigma"
        case freeMeasuredPowerDBm = "freeMeasuredPower", freePathLossExponent, biasVersusSiteDB = "biasVersusSite"
    }
}
