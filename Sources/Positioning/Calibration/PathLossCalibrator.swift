import FoundationEssentials
import Glibc

/// Fits measuredPower, pathLossExponent and the shadowing sigma from a survey, per anchor and site-wide.
///
/// The model is linear in its parameters: `rssi = P₀ − n L` with `L = 10 log10(d)` and d the 3-D distance
/// from the anchor to the surveyed position. Each fit is a Huber M-estimate by IRLS (Huber 1964; scale by the
/// normalized MAD, Hampel et al. 1986 §2.3). Per anchor, the normal equations get a prior pulling toward the
/// site-wide fit worth `shrinkageSamples` average samples (ridge toward the pooled line, so an anchor with few
/// samples inherits the site's fit and one with many keeps its own). Sanity bounds: n in
/// [`exponentRange`], P₀ in [`measuredPowerRange`]; a clamped n re-fits P₀ alone. The residual sigma is
/// shrunk the same way and kept at or above `sigmaFloorDB`.
public struct PathLossCalibrator: Sendable {
    /// Weight of the site-wide prior, in samples.
    public var shrinkageSamples: Double = 30
    /// Physical range of the path-loss exponent.
    public var exponentRange: ClosedRange<Double> = 1.2...5.0
    /// Physical range of the 1 m RSSI, dBm.
    public var measuredPowerRange: ClosedRange<Double> = -100.0 ... -20.0
    /// Huber threshold in robust sigmas.
    public var huberThreshold: Double = 1.5
    /// Smallest residual sigma reported, dB.
    public var sigmaFloorDB: Double = 1
    /// Distances below this are clamped (near field), metres: the model's reference distance d₀ = 1 m, below
    /// which the log-distance law is not assumed to hold (Rappaport §4.9); the engine's `nearFieldMeters` is
    /// the same.
    public var minimumDistanceMeters: Double = 1
    /// Whether a venue with rooms also gets a loss per wall (`Venue.wallLossDB`): one loss for the site, fitted
    /// jointly with a line per anchor on the walls each sample's line to its anchor crosses (`WallMap`); the
    /// models are then fitted as without walls on the RSSI with the walls' loss given back.
    public var fitsWallLoss = false
    /// Physical range of the loss per wall, dB.
    public var wallLossRange: ClosedRange<Double> = 0...20

    /// Creates a calibrator with the documented defaults.
    public init() {}

    /// The result: a site-wide fit and one fit per anchor that had samples.
    public struct Result: Sendable {
        /// The pooled fit over all anchors.
        public var site: PathLossFit
        /// Per-anchor fits, by anchor id.
        public var anchors: [String: PathLossFit]
        /// Median surveyed target height, metres (the typical height of the located device).
        public var targetHeightMeters: Double?
        /// Samples skipped because their anchor is not in the venue.
        public var unknownAnchorSamples: Int
        /// The loss per wall, dB, when it was fitted (`fitsWallLoss` and a venue with rooms).
        public var wallLossDB: Double?

        /// The venue with the site model replaced and each fitted anchor carrying its own model.
        public func applied(to venue: Venue) -> Venue {
            var v = venue
            v.model = site.model
            for i in v.anchors.indices {
                guard let fit = anchors[v.anchors[i].id] else { continue }
                v.anchors[i].measuredPowerDBm = fit.model.measuredPowerDBm
                v.anchors[i].pathLossExponent = fit.model.pathLossExponent
                v.anchors[i].shadowingSigmaDB = fit.model.shadowingSigmaDB
                v.anchors[i].calibration = AnchorCalibration(source: .survey, samples: fit.samples,
                                                             uncertainty: fit.uncertainty)
            }
            // A loss belongs to the models it was fitted with: new models without one drop the old.
            v.wallLossDB = wallLossDB
            return v
        }
    }

    /// Fits the survey samples against the venue's anchor positions.
    public func fit(_ samples: [CalibrationSample], venue: Venue) -> Result {
        var index: [String: Anchor] = [:]
        for a in venue.anchors { index[a.id] = a }
        let walls = fitsWallLoss ? WallMap(venue: venue) : nil
        // Each row: L = 10 log10(d), the RSSI, and the walls between the sample and its anchor.
        var perAnchor: [String: [(L: Double, y: Double, k: Double)]] = [:]
        var pooled: [(L: Double, y: Double, k: Double)] = []
        var unknown = 0
        for s in samples {
            guard let a = index[s.anchor] else { unknown += 1; continue }
            let dx = s.x - a.x, dy = s.y - a.y, dz = s.z - a.z
            let d = max((dx * dx + dy * dy + dz * dz).squareRoot(), minimumDistanceMeters)
            let k = walls.map { Double($0.wallsCrossed(fromX: a.x, fromY: a.y, toX: s.x, toY: s.y, floor: a.floor)) }
            let row = (L: 10 * log10(d), y: s.rssiDBm, k: k ?? 0)
            perAnchor[s.anchor, default: []].append(row)
            pooled.append(row)
        }
        let heights = samples.map(\.z).sorted()
        let height = heights.isEmpty ? nil : heights[heights.count / 2]
        guard !pooled.isEmpty else {
            return Result(site: PathLossFit(model: venue.model, samples: 0, clamped: false), anchors: [:],
                          targetHeightMeters: height, unknownAnchorSamples: unknown)
        }
        // The models see the RSSI with the walls' loss given back: y + loss · k = P₀ − n L.
        func models(loss: Double) -> (site: PathLossFit, anchors: [String: PathLossFit]) {
            let all = pooled.map { (L: $0.L, y: $0.y + loss * $0.k) }
            let site = robustFit(all, prior: nil)
            // The site's average information per sample, scaled to the prior's weight.
            let prior = (fit: site, information: averageInformation(all).map { $0 * shrinkageSamples })
            var fits: [String: PathLossFit] = [:]
            for (id, rows) in perAnchor {
                fits[id] = robustFit(rows.map { (L: $0.L, y: $0.y + loss * $0.k) }, prior: prior)
            }
            return (site, fits)
        }
        let loss = walls == nil ? 0 : wallLoss(perAnchor)
        let fitted = models(loss: loss)
        return Result(site: fitted.site, anchors: fitted.anchors, targetHeightMeters: height,
                      unknownAnchorSamples: unknown, wallLossDB: walls == nil ? nil : loss)
    }

    /// The loss per wall of the joint least-squares fit of `y = P₀ₐ − nₐ L − loss · k` (a line per anchor, one
    /// loss): by Frisch-Waugh-Lovell, the slope of y on k after both are cleared of each anchor's line, negated and
    /// kept in `wallLossRange`. Walls, counted along the same lines as distance, are told apart from it only this
    /// way (fitting the lines and the loss by turns creeps towards the joint fit and stops short of it).
    private func wallLoss(_ perAnchor: [String: [(L: Double, y: Double, k: Double)]]) -> Double {
        var ky = 0.0, kk = 0.0
        for rows in perAnchor.values where rows.count >= 3 {
            let n = Double(rows.count)
            let mL = rows.reduce(0) { $0 + $1.L } / n, mY = rows.reduce(0) { $0 + $1.y } / n
            let mK = rows.reduce(0) { $0 + $1.k } / n
            var lL = 0.0, lY = 0.0, lK = 0.0
            for r in rows {
                lL += (r.L - mL) * (r.L - mL)
                lY += (r.L - mL) * (r.y - mY)
                lK += (r.L - mL) * (r.k - mK)
            }
            let bY = lL > 0 ? lY / lL : 0, bK = lL > 0 ? lK / lL : 0
            for r in rows {
                let kr = (r.k - mK) - bK * (r.L - mL), yr = (r.y - mY) - bY * (r.L - mL)
                ky += kr * yr
                kk += kr * kr
            }
        }
        guard kk > 1e-9 else { return 0 }
        return min(max(-ky / kk, wallLossRange.lowerBound), wallLossRange.upperBound)
    }

    /// [Σ1, ΣL, ΣL²] / N of a design (the per-sample information of the line's normal equations).
    private func averageInformation(_ rows: [(L: Double, y: Double)]) -> [Double] {
        let n = Double(rows.count)
        var sL = 0.0, sLL = 0.0
        for r in rows { sL += r.L; sLL += r.L * r.L }
        return [1, sL / n, sLL / n]
    }

    /// Huber IRLS fit of `y = P₀ − n L`, optionally with a Gaussian prior (ridge) toward another fit.
    private func robustFit(_ rows: [(L: Double, y: Double)],
                           prior: (fit: PathLossFit, information: [Double])?) -> PathLossFit {
        var p0 = prior?.fit.model.measuredPowerDBm ?? -59
        var n = prior?.fit.model.pathLossExponent ?? 2
        var sigma = prior?.fit.model.shadowingSigmaDB ?? 6
        var weights = Array(repeating: 1.0, count: rows.count)
        for _ in 0..<30 {
            var equations = Self.equations(prior)
            for (i, r) in rows.enumerated() { equations.add(l: r.L, y: r.y, weight: weights[i]) }
            let (newP0, newN) = equations.solve() ?? (equations.level(givenExponent: n), n)
            let moved = abs(newP0 - p0) + abs(newN - n)
            p0 = newP0
            n = newN
            var residuals = rows.map { $0.y - (p0 - n * $0.L) }
            sigma = max(1.4826 * PathLossCalibrator.median(residuals.map { abs($0) }), sigmaFloorDB)
            for i in rows.indices {
                weights[i] = RobustLoss.huber(huberThreshold).weight(residuals[i] / sigma)
            }
            residuals.removeAll()
            if moved < 1e-6 { break }
        }
        var clamped = false
        if !exponentRange.contains(n) {
            n = min(max(n, exponentRange.lowerBound), exponentRange.upperBound)
            let offsets = rows.map { $0.y + n * $0.L }
            p0 = PathLossCalibrator.median(offsets)
            clamped = true
        }
        if !measuredPowerRange.contains(p0) {
            p0 = min(max(p0, measuredPowerRange.lowerBound), measuredPowerRange.upperBound)
            clamped = true
        }
        let residuals = rows.map { abs($0.y - (p0 - n * $0.L)) }
        var s = max(1.4826 * PathLossCalibrator.median(residuals), sigmaFloorDB)
        if let prior {
            // Shrink the variance toward the site's as the parameters were.
            let k = shrinkageSamples, m = Double(rows.count), ss = prior.fit.model.shadowingSigmaDB
            s = max(((m * s * s + k * ss * ss) / (m + k)).squareRoot(), sigmaFloorDB)
        }
        var fit = PathLossFit(model: PathLossModel(measuredPowerDBm: p0, pathLossExponent: n, shadowingSigmaDB: s),
                              samples: rows.count, clamped: clamped)
        fit.uncertainty = standardErrors(rows, weights: weights, prior: prior, sigma: s)
        return fit
    }

    /// The standard errors of a line's level at 4 m and slope: σ² (XᵀWX + prior)⁻¹ in (P₀, n), with the level
    /// `P₀ − n L₄` (L₄ = 10 log10 4) read off it.
    private func standardErrors(_ rows: [(L: Double, y: Double)], weights: [Double],
                                prior: (fit: PathLossFit, information: [Double])?, sigma: Double) -> ModelUncertainty {
        var equations = Self.equations(prior)
        for (i, r) in rows.enumerated() { equations.add(l: r.L, y: r.y, weight: weights[i]) }
        guard let inverse = equations.inverse else { return .none }
        let s2 = sigma * sigma
        let v00 = s2 * inverse.levelLevel, v11 = s2 * inverse.exponentExponent, v01 = s2 * inverse.levelExponent
        let l4 = 10 * log10(ModelUncertainty.referenceDistanceMeters)
        let level = max(v00 + l4 * l4 * v11 - 2 * l4 * v01, 0)
        return ModelUncertainty(levelSigmaDB: level.squareRoot(), exponentSigma: v11.squareRoot())
    }

    /// The normal equations holding only the prior, if any: its information is [[i0, −iL], [−iL, iLL]] in (P₀, n).
    private static func equations(_ prior: (fit: PathLossFit, information: [Double])?) -> LineNormalEquations {
        guard let prior else { return LineNormalEquations() }
        return LineNormalEquations(
            level: prior.fit.model.measuredPowerDBm, exponent: prior.fit.model.pathLossExponent,
            levelInformation: prior.information[0], crossInformation: -prior.information[1],
            exponentInformation: prior.information[2])
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let s = values.sorted()
        let k = s.count
        return k % 2 == 1 ? s[k / 2] : 0.5 * (s[k / 2 - 1] + s[k / 2])
    }
}
