import Foundation
import Positioning

/// `fit`: per-anchor path-loss calibration from survey samples, with flags for anchors that look dead, moved or
/// blocked.
///
/// The parameters come from Positioning's `PathLossCalibrator` (Huber IRLS of `rssi = P₀ − 10 n log10 d`, each
/// anchor shrunk toward the site fit by `shrinkageSamples`, sanity bounds on P₀ and n). On top of it, each anchor
/// is fitted again with no shrinkage (its "free" fit) and its samples are compared with the site model; the
/// position search of `AnchorShiftSearch` says whether the samples fit better with the anchor elsewhere.
public struct SurveyFitter: Sendable {
    /// When an anchor is flagged.
    public struct Thresholds: Sendable, Hashable, Codable {
        /// Fewer samples than this: `dead`.
        public var minimumSamples: Int = 10
        /// Median (measured − site model) at or below minus this, dB: `blocked`.
        public var blockedBiasDB: Double = 8
        /// Free exponent this far from the site's: `blocked`.
        public var blockedExponentDelta: Double = 1.5
        /// Residual sigma above this multiple of the site's: `blocked`.
        public var blockedSigmaRatio: Double = 1.8
        /// A best-fitting position at least this far from the venue's, metres ...
        public var movedShiftMeters: Double = 1.5
        /// ... whose residual RMS is at most this fraction of the venue position's: `moved`.
        public var movedResidualRatio: Double = 0.7
        /// Distinct surveyed positions (10 cm cells) needed before the position search runs.
        public var movedMinimumPositions: Int = 6

        /// The documented defaults.
        public init() {}
    }

    /// The path-loss calibrator (shrinkage, bounds, robust loss).
    public var calibrator: PathLossCalibrator
    /// Flag thresholds.
    public var thresholds: Thresholds
    /// Step of the position search, metres.
    public var searchStepMeters: Double = 0.25

    /// Creates a fitter with Positioning's calibrator defaults.
    public init(calibrator: PathLossCalibrator = PathLossCalibrator(), thresholds: Thresholds = Thresholds()) {
        self.calibrator = calibrator
        self.thresholds = thresholds
    }

    /// Fits the samples against the venue: the calibrated venue and the report.
    public func fit(_ samples: [CalibrationSample], venue: Venue) -> (venue: Venue, report: FitReport) {
        let result = calibrator.fit(samples, venue: venue)
        var free = calibrator
        free.shrinkageSamples = 0
        let freeResult = free.fit(samples, venue: venue)
        let site = result.site.model
        var byAnchor: [String: [CalibrationSample]] = [:]
        for s in samples { byAnchor[s.anchor, default: []].append(s) }
        let search = AnchorShiftSearch(stepMeters: searchStepMeters, exponentRange: calibrator.exponentRange,
                                       minimumDistanceMeters: calibrator.minimumDistanceMeters)
        var diagnoses: [AnchorDiagnosis] = []
        for anchor in venue.anchors {
            let own = byAnchor[anchor.id] ?? []
            let model = result.anchors[anchor.id]?.model ?? anchor.model(default: site)
            var d = AnchorDiagnosis(
                id: anchor.id, samples: own.count, measuredPowerDBm: model.measuredPowerDBm,
                pathLossExponent: model.pathLossExponent,
                residualSigmaDB: robustSigma(own.map { $0.rssiDBm - predicted(model, anchor, $0) }),
                freeMeasuredPowerDBm: freeResult.anchors[anchor.id]?.model.measuredPowerDBm,
                freePathLossExponent: freeResult.anchors[anchor.id]?.model.pathLossExponent,
                biasVersusSiteDB: own.isEmpty ? nil : median(own.map { $0.rssiDBm - predicted(site, anchor, $0) }),
                clamped: result.anchors[anchor.id]?.clamped ?? false, flags: [], reasons: [])
            diagnose(&d, anchor: anchor, samples: own, site: result.site, venue: venue, search: search)
            diagnoses.append(d)
        }
        var report = FitReport(
            site: FitReport.Site(measuredPower: site.measuredPowerDBm, pathLossExponent: site.pathLossExponent,
                                 residualSigma: site.shadowingSigmaDB, samples: result.site.samples),
            anchors: diagnoses, targetHeight: result.targetHeightMeters,
            unknownAnchorSamples: result.unknownAnchorSamples, thresholds: thresholds)
        report.wallLoss = result.wallLossDB
        var calibrated = result.applied(to: venue)
        calibrated.radius = RadiusCalibrations() // measured with the old models; `HeldOutCalibration` makes a new one
        return (calibrated, report)
    }

    /// Raises the flags of one anchor.
    private func diagnose(_ d: inout AnchorDiagnosis, anchor: Anchor, samples: [CalibrationSample],
                          site: PathLossFit, venue: Venue, search: AnchorShiftSearch) {
        let t = thresholds
        if samples.count < t.minimumSamples {
            d.flags.append(.dead)
            d.reasons.append(samples.isEmpty ? "dead: never heard in the survey (off, out of range or another id?)"
                             : "dead: only \(samples.count) samples (fewer than \(t.minimumSamples))")
            return
        }
        let siteSigma = site.model.shadowingSigmaDB
        var blocked: [String] = []
        if let bias = d.biasVersusSiteDB, bias <= -t.blockedBiasDB {
            blocked.append(String(format: "%.1f dB weaker than the site model", -bias))
        }
        if let n = d.freePathLossExponent, abs(n - site.model.pathLossExponent) >= t.blockedExponentDelta {
            blocked.append(String(format: "own exponent %.2f vs site %.2f", n, site.model.pathLossExponent))
        }
        if d.residualSigmaDB >= t.blockedSigmaRatio * siteSigma {
            blocked.append(String(format: "residual sigma %.1f dB vs site %.1f dB", d.residualSigmaDB, siteSigma))
        }
        if !blocked.isEmpty {
            d.flags.append(.blocked)
            d.reasons.append("blocked: " + blocked.joined(separator: "; "))
        }
        let area = searchArea(venue: venue, samples: samples)
        if let shift = search.bestShift(of: anchor, samples: samples, area: area,
                                        minimumPositions: t.movedMinimumPositions) {
            d.bestX = shift.x
            d.bestY = shift.y
            d.shiftMeters = shift.distanceMeters
            d.shiftResidualRatio = shift.residualRatio
            if shift.distanceMeters >= t.movedShiftMeters && shift.residualRatio <= t.movedResidualRatio {
                d.flags.append(.moved)
                d.reasons.append(String(
                    format: "moved: fits best at (%.2f, %.2f), %.1f m from the venue position, residual RMS x%.2f",
                    shift.x, shift.y, shift.distanceMeters, shift.residualRatio))
            }
        }
    }

    /// The venue bounds (or the surveyed positions' extent) grown by 1 m.
    private func searchArea(venue: Venue, samples: [CalibrationSample]) -> Venue.Bounds {
        var b = venue.bounds ?? Venue.Bounds(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        for s in samples {
            b.minX = min(b.minX, s.x); b.minY = min(b.minY, s.y)
            b.maxX = max(b.maxX, s.x); b.maxY = max(b.maxY, s.y)
        }
        return Venue.Bounds(minX: b.minX - 1, minY: b.minY - 1, maxX: b.maxX + 1, maxY: b.maxY + 1)
    }

    /// The model's RSSI for a sample (3-D distance, clamped to the near-field minimum).
    private func predicted(_ m: PathLossModel, _ a: Anchor, _ s: CalibrationSample) -> Double {
        let d = ((s.x - a.x) * (s.x - a.x) + (s.y - a.y) * (s.y - a.y) + (s.z - a.z) * (s.z - a.z)).squareRoot()
        return m.rssiDBm(atDistanceMeters: max(d, calibrator.minimumDistanceMeters))
    }

    /// 1.4826 × the median absolute residual (0 without residuals).
    private func robustSigma(_ residuals: [Double]) -> Double {
        1.4826 * median(residuals.map { abs($0) })
    }
}

/// The median (0 for no values).
func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let s = values.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : 0.5 * (s[s.count / 2 - 1] + s[s.count / 2])
}
