import CalibrationRuns
import Foundation
import Formats

/// What `bluedot-calibrate fit` found: the site fit, every anchor's diagnosis, and the thresholds used.
public struct FitReport: Sendable, Hashable, Codable {
    /// The pooled site-wide fit.
    public struct Site: Sendable, Hashable, Codable {
        /// 1 m RSSI, dBm.
        public var measuredPower: Double
        /// Path-loss exponent.
        public var pathLossExponent: Double
        /// Robust residual sigma, dB.
        public var residualSigma: Double
        /// Samples pooled.
        public var samples: Int
    }

    /// The site-wide fit.
    public var site: Site
    /// One entry per venue anchor, in venue order.
    public var anchors: [AnchorDiagnosis]
    /// Median surveyed target height, metres.
    public var targetHeight: Double?
    /// Survey samples whose anchor is not in the venue.
    public var unknownAnchorSamples: Int
    /// The thresholds the flags used.
    public var thresholds: SurveyFitter.Thresholds
    /// The accuracy radius calibrated on held-out replays of the survey, when it was (`bluedot-calibrate fit`).
    public var radius: HeldOutCalibration.Summary?
    /// The loss per wall fitted with the models (`fit --fit-walls` on a venue with rooms), dB.
    public var wallLoss: Double?

    /// The anchors that carry a flag.
    public var flagged: [AnchorDiagnosis] { anchors.filter { !$0.flags.isEmpty } }

    /// Pretty-printed JSON with sorted keys (deterministic), ending in a newline.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// A table for the terminal: the site fit, one line per anchor, then the flags with their evidence.
    public var text: String {
        var lines: [String] = []
        lines.append(String(format: "site: measuredPower %.1f dBm, exponent %.2f, residual sigma %.1f dB, %d samples",
                            site.measuredPower, site.pathLossExponent, site.residualSigma, site.samples))
        lines.append("anchor                                     samples  P1m dBm      n  sigma dB  flags")
        for a in anchors {
            let id = a.id.count > 42 ? String(a.id.prefix(41)) + "…" : a.id.padding(toLength: 42, withPad: " ",
                                                                                      startingAt: 0)
            lines.append(String(format: "%@ %7d  %7.1f  %5.2f  %8.1f  %@", id, a.samples, a.measuredPowerDBm,
                                a.pathLossExponent, a.residualSigmaDB,
                                a.flags.isEmpty ? "-" : a.flags.map(\.rawValue).joined(separator: ",")))
        }
        for a in anchors {
            for reason in a.reasons { lines.append("\(a.id): \(reason)") }
        }
        if let wallLoss { lines.append(String(format: "walls: %.2f dB per wall between anchor and target", wallLoss)) }
        if unknownAnchorSamples > 0 { lines.append("\(unknownAnchorSamples) samples of anchors not in the venue skipped") }
        return lines.joined(separator: "\n") + "\n"
    }
}
