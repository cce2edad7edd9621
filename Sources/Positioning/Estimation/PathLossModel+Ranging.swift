import FoundationEssentials
import Glibc

extension PathLossModel {
    /// dRSSI/dd at a distance, dB per metre: `-10 n / (d ln 10)` (the model's derivative).
    public func rssiSlopeDBPerMeter(atDistanceMeters d: Double) -> Double {
        -10 * pathLossExponent / (max(d, 0.01) * M_LN10)
    }

    /// The standard deviation of a range read from one RSSI through the inverse model, metres.
    ///
    /// First-order propagation through the inverse: `σ_d = σ_rssi · |dd/drssi| = σ_rssi · d ln 10 / (10 n)`,
    /// with `σ_rssi` the shadowing sigma unless given. The range error is log-normal, so this is the
    /// linearized spread at the median distance.
    public func rangeSigmaMeters(atDistanceMeters d: Double, rssiSigmaDB: Double? = nil) -> Double {
        (rssiSigmaDB ?? shadowingSigmaDB) * max(d, 0.01) * M_LN10 / (10 * pathLossExponent)
    }
}
