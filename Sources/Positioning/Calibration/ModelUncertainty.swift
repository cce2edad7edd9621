import FoundationEssentials
import Glibc

/// How far an anchor's path-loss model may be from the truth, as standard deviations of its level (the RSSI at
/// the reference distance, `referenceDistanceMeters`) and of its exponent.
///
/// Read at 4 m rather than at 1 m, a fit's level and slope are nearly uncorrelated (the surveyed distances centre
/// there), so the two sigmas can be taken as independent.
public struct ModelUncertainty: Sendable, Hashable {
    /// The distance the level is read at, metres.
    public static let referenceDistanceMeters = 4.0
    /// Standard deviation of the level, dB.
    public var levelSigmaDB: Double
    /// Standard deviation of the path-loss exponent.
    public var exponentSigma: Double

    /// Creates an uncertainty.
    public init(levelSigmaDB: Double, exponentSigma: Double) {
        self.levelSigmaDB = levelSigmaDB
        self.exponentSigma = exponentSigma
    }

    /// A model known exactly.
    public static let none = ModelUncertainty(levelSigmaDB: 0, exponentSigma: 0)

    /// Whether it claims any uncertainty.
    public var isZero: Bool { levelSigmaDB == 0 && exponentSigma == 0 }

    /// The variance of the model's RSSI error at distance d, dB²: `σ_P² + (10 log10(d / d_ref))² σ_n²`.
    @inline(__always)
    public func variance(atLogDistance l: Double) -> Double {
        levelSigmaDB * levelSigmaDB + l * l * exponentSigma * exponentSigma
    }

    /// `10 log10(d / d_ref)`, the slope's lever at distance d.
    @inline(__always)
    public static func logDistance(_ d: Double) -> Double {
        10 * log10(max(d, 0.01) / referenceDistanceMeters)
    }
}

/// What an anchor's model error is made of: a part shared by every anchor that shares it (the site's level and
/// slope, wrong together when nobody surveyed the site) and the anchor's own part.
public struct AnchorUncertainty: Sendable, Hashable {
    /// The shared part: fully correlated between anchors that carry it.
    public var shared: ModelUncertainty
    /// The anchor's own part: independent between anchors.
    public var own: ModelUncertainty

    /// Creates one.
    public init(shared: ModelUncertainty, own: ModelUncertainty) {
        self.shared = shared
        self.own = own
    }

    /// A model known exactly.
    public static let none = AnchorUncertainty(shared: .none, own: .none)

    /// An anchor with no calibration: the prior of `UncalibratedPrior`.
    public static let uncalibrated = AnchorUncertainty(shared: UncalibratedPrior.site, own: UncalibratedPrior.anchor)

    /// Whether it claims any uncertainty.
    public var isZero: Bool { shared.isZero && own.isZero }
}

/// The prior on an uncalibrated anchor's model, measured on the shared datasets' surveys
/// (`Tools/analysis/calibration_prior.py`: Huber fits at 4 m, docs/positioning.md, "No survey").
///
/// Five survey groups (BOUN's four tracks, the WUT flat, UJI at three transmit powers) and 84 anchors. A site's
/// fitted model sits 6.9 dB (rms) from the formats' default of -59 dBm at 1 m and exponent 2, at 4 m, and its
/// exponent 0.29 from 2; around their site's fit, anchors spread by 1.6 dB and 0.30 (standard deviations; level and
/// slope correlate by -0.08). The site's part dominates: anchors of one site are wrong together.
public enum UncalibratedPrior {
    /// Site level: a site's fit against the formats' default, rms over five survey groups.
    public static let site = ModelUncertainty(levelSigmaDB: 6.9, exponentSigma: 0.29)
    /// Anchor level: an anchor's fit against its site's fit, standard deviation over 84 anchors.
    public static let anchor = ModelUncertainty(levelSigmaDB: 1.6, exponentSigma: 0.30)
    /// An anchor's RSSI around its own fit, robust sigma, median over the 84 anchors (per group 4.7-6.2 dB), dB:
    /// the shadowing sigma of a venue that states none (`PathLossModel.uncalibrated`). The 4 dB it was before made
    /// an uncalibrated radius too sure of itself (docs/positioning.md, "No survey").
    public static let shadowingSigmaDB = 5.4
    /// Each component of the body-shadow term of a carried device's static scan, when no survey measured it
    /// (`EngineConfiguration.stationary`; `BodyShadowEstimator` on a survey replaces it), dB: the mean of what UJI's
    /// surveys give at its three transmit powers (2.92, 2.68, 2.60), the only set of carried static scans. Without
    /// it a scan of many beacons was too sure of itself (docs/positioning.md, "No survey").
    public static let bodyShadowSigmaDB = 2.7
}
