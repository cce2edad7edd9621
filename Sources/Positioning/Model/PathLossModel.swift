import FoundationEssentials
import Glibc

/// The log-distance path-loss model: `rssi(d) = measuredPower - 10 n log10(d / 1 m)`.
///
/// Rappaport, *Wireless Communications*, 2nd ed., §4.9.1 (log-distance path loss) and §4.9.2 (log-normal
/// shadowing, whose standard deviation is `shadowingSigmaDB`).
public struct PathLossModel: Sendable, Hashable {
    /// Expected RSSI at 1 m, in dBm.
    public var measuredPowerDBm: Double
    /// The path-loss exponent n (2 in free space, typically 1.6 to 4 indoors).
    public var pathLossExponent: Double
    /// Standard deviation of the shadowing around the model, in dB.
    public var shadowingSigmaDB: Double

    /// The uncalibrated default of the formats, -59 dBm at 1 m and exponent 2, with BlueDot's shadowing sigma for a
    /// venue that states none: how surveyed anchors scatter around their own fits (`UncalibratedPrior`, 5.4 dB).
    public static let uncalibrated = PathLossModel(measuredPowerDBm: -59, pathLossExponent: 2,
                                                   shadowingSigmaDB: UncalibratedPrior.shadowingSigmaDB)

    /// Creates a model.
    public init(measuredPowerDBm: Double, pathLossExponent: Double, shadowingSigmaDB: Double = 4) {
        self.measuredPowerDBm = measuredPowerDBm
        self.pathLossExponent = pathLossExponent
        self.shadowingSigmaDB = shadowingSigmaDB
    }

    /// The expected RSSI at a distance (clamped to at least 1 cm).
    public func rssiDBm(atDistanceMeters d: Double) -> Double {
        measuredPowerDBm - 10 * pathLossExponent * Self.log10(max(d, 0.01))
    }

    /// log₁₀ as ln x / ln 10: the solvers evaluate the model hundreds of times per fix, and the C library's
    /// `log10` costs nearly twice its `log` (the two differ in the last bits only).
    @inline(__always)
    static func log10(_ x: Double) -> Double { log(x) * (1 / M_LN10) }

    /// The distance at which the model expects the given RSSI (the model's inverse).
    public func distanceMeters(forRSSI rssiDBm: Double) -> Double {
        pow(10, (measuredPowerDBm - rssiDBm) / (10 * pathLossExponent))
    }
}
