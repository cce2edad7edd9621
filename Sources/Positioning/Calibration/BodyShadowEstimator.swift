import FoundationEssentials

/// Measures from a survey how strongly a carrier's body shades the anchors behind it.
///
/// A device held by a person is heard louder by the anchors it faces than by those behind the body. For one
/// moment of one carrier (a scan), anchor i's residual against the calibrated model then carries a term
/// `a cos φᵢ + b sin φᵢ`, φᵢ the bearing from the device to the anchor and (a, b) fixed by the carrier's
/// heading. The survey does not record headings, but it does record positions, so per moment the residuals are
/// regressed on `[1, cos φᵢ, sin φᵢ]` by least squares. For an estimate `ĉ` of the pair with design block `G`
/// of `(DᵀD)⁻¹` and residual variance `s²` (unbiased, n − 3 degrees of freedom), `E‖ĉ‖² = 2σ_b² + s² tr G`;
/// averaging `‖ĉ‖² − s² tr G` over the moments gives the variance σ_b² of each component (a method-of-moments
/// estimate of a random-effects variance: Searle, Casella and McCulloch, *Variance Components*, 1992, §3).
/// Moments whose anchors lie nearly in one direction (`tr G` above 1) say little about the term and are left out.
public struct BodyShadowEstimator: Sendable {
    /// Packets of one target within this many seconds form one moment (a static scan; a few steps of a walk).
    public var windowSeconds: Double = 2
    /// A moment needs this many distinct anchors.
    public var minimumAnchors = 8
    /// Moments with `tr G` above this are left out.
    public var maximumTraceG = 1.0
    /// Fewer usable moments than this give no estimate.
    public var minimumMoments = 20
    /// Distances below this are clamped, metres (the calibration's near-field distance).
    public var nearFieldMeters = PathLossCalibrator().minimumDistanceMeters

    /// Creates an estimator with the documented defaults.
    public init() {}

    /// The estimate: the standard deviation of each component of the body-shadow term, and the evidence.
    public struct Estimate: Sendable, Hashable {
        /// σ_b, dB (0 when the moments show no such term).
        public var sigmaDB: Double
        /// Moments that entered the average.
        public var moments: Int
        /// The residual sigma within a moment once the term is removed, dB (the root mean s²).
        public var withinSigmaDB: Double
    }

    /// Estimates σ_b from survey samples (with target and time) against the calibrated venue's models; nil
    /// when fewer than `minimumMoments` moments qualify (no targets or times, sparse scans, few anchors).
    public func estimate(_ samples: [CalibrationSample], venue: Venue) -> Estimate? {
        var index: [String: Anchor] = [:]
        for a in venue.anchors { index[a.id] = a }
        var firstTime: [String: Double] = [:]
        for s in samples where !s.target.isEmpty { firstTime[s.target] = min(firstTime[s.target] ?? s.t, s.t) }
        struct Key: Hashable { var target: String, slot: Int }
        var moments: [Key: [CalibrationSample]] = [:]
        for s in samples where !s.target.isEmpty && index[s.anchor] != nil {
            let slot = Int(((s.t - firstTime[s.target]!) / windowSeconds).rounded(.down))
            moments[Key(target: s.target, slot: slot), default: []].append(s)
        }
        var sum = 0.0, within = 0.0, count = 0
        for key in moments.keys.sorted(by: { ($0.target, $0.slot) < ($1.target, $1.slot) }) {
            guard let term = fit(moments[key]!, anchors: index, site: venue.model) else { continue }
            sum += term.excess
            within += term.s2
            count += 1
        }
        guard count >= minimumMoments else { return nil }
        return Estimate(sigmaDB: max(sum / Double(count) / 2, 0).squareRoot(), moments: count,
                        withinSigmaDB: (within / Double(count)).squareRoot())
    }

    /// One moment: `‖ĉ‖² − s² tr G` and s², or nil when it does not qualify.
    private func fit(_ packets: [CalibrationSample], anchors: [String: Anchor],
                     site: PathLossModel) -> (excess: Double, s2: Double)? {
        // One residual per anchor (the mean over its packets), at the moment's mean true position.
        var sums: [String: (r: Double, n: Double)] = [:]
        var px = 0.0, py = 0.0, pz = 0.0
        for s in packets {
            px += s.x
            py += s.y
            pz += s.z
        }
        let n = Double(packets.count)
        (px, py, pz) = (px / n, py / n, pz / n)
        for s in packets {
            let a = anchors[s.anchor]!
            let d = ((px - a.x) * (px - a.x) + (py - a.y) * (py - a.y) + (pz - a.z) * (pz - a.z)).squareRoot()
            let r = s.rssiDBm - a.model(default: site).rssiDBm(atDistanceMeters: max(d, nearFieldMeters))
            var e = sums[s.anchor] ?? (0, 0)
            e.r += r
            e.n += 1
            sums[s.anchor] = e
        }
        guard sums.count >= minimumAnchors else { return nil }
        var rows: [[Double]] = [], values: [Double] = []
        for (id, e) in sums.sorted(by: { $0.key < $1.key }) {
            let a = anchors[id]!
            let dx = a.x - px, dy = a.y - py
            let h = (dx * dx + dy * dy).squareRoot()
            guard h > 1e-6 else { continue }
            rows.append([1, dx / h, dy / h])
            values.append(e.r / e.n)
        }
        guard rows.count >= max(minimumAnchors, 4) else { return nil }
        var ata = Matrix(rows: 3, columns: 3), atb = [Double](repeating: 0, count: 3)
        for (row, v) in zip(rows, values) {
            for i in 0..<3 {
                atb[i] += row[i] * v
                for j in 0..<3 { ata[i, j] += row[i] * row[j] }
            }
        }
        guard let g = ata.inverseSPD(), g[1, 1] + g[2, 2] <= maximumTraceG else { return nil }
        let c = (0..<3).map { i in (0..<3).reduce(0.0) { $0 + g[i, $1] * atb[$1] } }
        var rss = 0.0
        for (row, v) in zip(rows, values) {
            let e = v - (row[0] * c[0] + row[1] * c[1] + row[2] * c[2])
            rss += e * e
        }
        let s2 = rss / Double(rows.count - 3)
        return (c[1] * c[1] + c[2] * c[2] - s2 * (g[1, 1] + g[2, 2]), s2)
    }
}
