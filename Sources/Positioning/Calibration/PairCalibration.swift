import FoundationEssentials
import Glibc

/// Receivers that hear each other: in tag mode every pair of anchors at known places is a survey with nobody
/// walking it. An observation whose target is itself one of the venue's anchors (an ESPresense node's `node:<id>`
/// advertisement, a BlueDot receiver's own) is a link from that anchor to the one that heard it.
///
/// The fit: each link's RSSI (the median of its last `Settings.linkSamples`) is `P + gⱼ − n Lᵢⱼ` with
/// `Lᵢⱼ = 10 log10(dᵢⱼ / 4 m)`, gⱼ the receiving anchor's gain offset (what makes one receiver hear everything louder:
/// its radio, antenna and mounting), P and n one level and exponent for the site. The receivers' own transmit power
/// is taken as equal (ESPresense and BlueDot receivers advertise at one set power), so a link tells only the
/// receiver's gain apart, and that is what positioning a tag needs: the tag's own power is the site level that
/// `SelfCalibration` learns. Huber IRLS by turns (site, then each gain), with a zero-mean prior on the gains
/// (`Settings.gainPriorSigmaDB`) that also fixes their sum; a wall between two receivers is a large residual that
/// Huber's loss turns down, not a gain. ESPresense-companion fits the same quantities by Nelder-Mead on distance
/// errors and accepts all-or-nothing (docs/positioning.md, "Self-calibration"); here the fit is linear in dB and
/// robust, and every gain comes with its standard error.
public struct PairCalibration: Sendable {
    /// The tunables.
    public struct Settings: Sendable, Hashable {
        /// RSSI samples kept per link (the newest).
        public var linkSamples = 31
        /// Links needed before a fit.
        public var minimumLinks = 3
        /// Samples a link needs before it counts towards `minimumLinks` and enters a fit: one RSSI is no median.
        public var minimumLinkSamples = 5
        /// Prior sigma of a receiver's gain offset, dB (the spread of receivers' gains: ESPresense-companion's
        /// default `rx_adj_rssi` limits are -15 to 20 dB; a BlueDot site's are within ±6 dB).
        public var gainPriorSigmaDB = 6.0
        /// Huber threshold, sigmas.
        public var huberThreshold = 1.5
        /// Residual sigma of a link's median around the model, dB (walls and furniture: the shared sets' surveys
        /// scatter 4-6 dB around their fits).
        public var linkSigmaDB = 4.0
        /// Seconds between fits.
        public var refitIntervalSeconds = 60.0
        public init() {}
    }

    /// A receiver's gain offset and its standard error, dB.
    public struct Gain: Sendable, Hashable {
        public var offsetDB: Double
        public var sigmaDB: Double
    }

    /// A fit.
    public struct Fit: Sendable, Hashable {
        /// The site's level at 4 m and exponent for links between receivers.
        public var levelDBm: Double, exponent: Double
        /// Each receiving anchor's gain, by anchor index (nil: it heard no link).
        public var gains: [Gain?]
        /// Links fitted.
        public var links: Int
    }

    public let settings: Settings
    /// Samples per link, keyed by transmitting × receiving anchor.
    private var links: [Int: [Double]] = [:]
    private var lastFitTime = -Double.infinity
    /// Link observations taken.
    public private(set) var samples = 0
    /// The last fit.
    public private(set) var fit: Fit?

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// Adds what anchor `rx` heard of anchor `tx`; fits when due. Returns true when a new fit was made.
    mutating func add(tx: Int, rx: Int, rssiDBm: Double, t: Double, anchors: AnchorTable) -> Bool {
        guard tx != rx else { return false }
        samples += 1
        let key = tx * anchors.count + rx
        var s = links[key, default: []]
        s.append(rssiDBm)
        if s.count > settings.linkSamples { s.removeFirst(s.count - settings.linkSamples) }
        links[key] = s
        guard t - lastFitTime >= settings.refitIntervalSeconds,
              links.values.count(where: { $0.count >= settings.minimumLinkSamples }) >= settings.minimumLinks
        else { return false }
        lastFitTime = t
        fit = Self.fit(links, anchors: anchors, settings: settings)
        return fit != nil
    }

    /// The robust fit of the links.
    static func fit(_ links: [Int: [Double]], anchors: AnchorTable, settings: Settings) -> Fit? {
        let count = anchors.count
        var rows: [(rx: Int, l: Double, y: Double)] = []
        for (key, samples) in links.sorted(by: { $0.key < $1.key }) where samples.count >= settings.minimumLinkSamples {
            let tx = key / count, rx = key % count
            let a = anchors.anchors[tx], b = anchors.anchors[rx]
            let dz = anchors.heights[tx] - anchors.heights[rx]
            let d = ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + dz * dz).squareRoot()
            rows.append((rx, ModelUncertainty.logDistance(max(d, 1)), PathLossCalibrator.median(samples)))
        }
        guard rows.count >= settings.minimumLinks else { return nil }
        let loss = RobustLoss.huber(settings.huberThreshold)
        let s2 = settings.linkSigmaDB * settings.linkSigmaDB
        let gainPrecision = 1 / (settings.gainPriorSigmaDB * settings.gainPriorSigmaDB)
        var level = rows.map(\.y).reduce(0, +) / Double(rows.count), n = 2.0
        var gains = [Double](repeating: 0, count: count)
        var weights = [Double](repeating: 1, count: rows.count)
        var heard = [Double](repeating: 0, count: count)
        for _ in 0..<20 {
            // Site level and exponent given the gains; a weak prior keeps the exponent near 2 with few links.
            var equations = LineNormalEquations(level: level, exponent: 2, levelInformation: 1e-6,
                                                exponentInformation: 1 / (0.5 * 0.5))
            for (k, r) in rows.enumerated() { equations.add(l: r.l, y: r.y - gains[r.rx], weight: weights[k] / s2) }
            guard let site = equations.solve() else { return nil }
            level = site.level
            n = min(max(site.exponent, 1.2), 5)
            // Each receiver's gain given the site.
            var num = [Double](repeating: 0, count: count)
            heard = [Double](repeating: 0, count: count)
            for (k, r) in rows.enumerated() {
                let w = weights[k] / s2
                num[r.rx] += w * (r.y - (level - n * r.l))
                heard[r.rx] += w
            }
            for j in 0..<count where heard[j] > 0 { gains[j] = num[j] / (heard[j] + gainPrecision) }
            for (k, r) in rows.enumerated() {
                weights[k] = loss.weight((r.y - (level + gains[r.rx] - n * r.l)) / settings.linkSigmaDB)
            }
        }
        // Each gain's standard error from the links' own scatter (robust, at least 1 dB), not the assumed
        // `linkSigmaDB`: links are medians of many samples, and a site without walls between its receivers fits
        // them much closer than 4 dB, which self-calibration should then trust as much.
        let residuals = rows.map { abs($0.y - (level + gains[$0.rx] - n * $0.l)) }
        let scatter = max(1.4826 * PathLossCalibrator.median(residuals), 1)
        var information = [Double](repeating: 0, count: count)
        for (k, r) in rows.enumerated() { information[r.rx] += weights[k] / (scatter * scatter) }
        let result = (0..<count).map { j -> Gain? in
            heard[j] > 0 ? Gain(offsetDB: gains[j], sigmaDB: (1 / (information[j] + gainPrecision)).squareRoot()) : nil
        }
        return Fit(levelDBm: level, exponent: n, gains: result, links: rows.count)
    }
}
