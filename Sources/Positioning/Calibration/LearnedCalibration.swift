/// What self-calibration learned, by anchor id: what the gateway keeps in its state directory across restarts,
/// shows in `/metrics` and `/api/calibration`, and `bluedot-calibrate learned` writes into a venue.
public struct LearnedCalibration: Sendable, Hashable {
    /// The site's level at 4 m and exponent, which every uncalibrated anchor shares, with their sigmas.
    public struct Site: Sendable, Hashable {
        public var levelDBm: Double
        public var exponent: Double
        public var uncertainty: ModelUncertainty
        public init(levelDBm: Double, exponent: Double, uncertainty: ModelUncertainty) {
            self.levelDBm = levelDBm
            self.exponent = exponent
            self.uncertainty = uncertainty
        }
    }

    /// One anchor's learned model.
    public struct Entry: Sendable, Hashable {
        public var id: String
        /// The model (RSSI at 1 m, exponent; the shadowing sigma stays the venue's).
        public var measuredPowerDBm: Double
        public var pathLossExponent: Double
        /// The anchor's own uncertainty (the site's is `Site.uncertainty`, for an anchor that shares it).
        public var uncertainty: ModelUncertainty
        /// Whether the anchor shares the site's model (it had no calibration of its own).
        public var sharesSite: Bool
        /// Measurements of the anchor behind the last accepted fit.
        public var samples: Int
        /// How much was learned: 1 − σ_learned / σ_prior of the level, in [0, 1].
        public var confidence: Double
        public init(id: String, measuredPowerDBm: Double, pathLossExponent: Double, uncertainty: ModelUncertainty,
                    sharesSite: Bool, samples: Int, confidence: Double) {
            self.id = id
            self.measuredPowerDBm = measuredPowerDBm
            self.pathLossExponent = pathLossExponent
            self.uncertainty = uncertainty
            self.sharesSite = sharesSite
            self.samples = samples
            self.confidence = confidence
        }
    }

    public var site: Site
    /// In the venue's anchor order.
    public var anchors: [Entry]
    /// What learning is doing, and its counts.
    public var phase: SelfCalibration.Phase
    public var counters: SelfCalibration.Counters

    public init(site: Site, anchors: [Entry], phase: SelfCalibration.Phase = .learning,
                counters: SelfCalibration.Counters = SelfCalibration.Counters()) {
        self.site = site
        self.anchors = anchors
        self.phase = phase
        self.counters = counters
    }

    /// Why a learned calibration does not fit an engine.
    public struct Mismatch: Error, Sendable, CustomStringConvertible {
        public var description: String
    }
}

extension SelfCalibration {
    /// What was learned, by the ids of the venue's anchors (table order).
    func snapshot(anchorIDs: [String]) -> LearnedCalibration {
        let states = anchorStates
        return LearnedCalibration(
            site: LearnedCalibration.Site(levelDBm: parameters.siteLevel, exponent: parameters.siteExponent,
                                          uncertainty: parameters.siteSigma),
            anchors: anchorIDs.indices.map { i in
                LearnedCalibration.Entry(id: anchorIDs[i], measuredPowerDBm: models[i].measuredPowerDBm,
                                         pathLossExponent: models[i].pathLossExponent,
                                         uncertainty: uncertainties[i].own,
                                         sharesSite: !priorUncertainties[i].shared.isZero, samples: samples[i],
                                         confidence: states[i].confidence)
            },
            phase: phase, counters: counters)
    }

    /// Takes up what an earlier run learned (anchors it does not know are left out; anchors it did not learn keep
    /// their prior). Throws, changing nothing, when a value is outside the bounds learning keeps to, or an anchor
    /// shares the site in one and not in the other (the venue's calibration changed since).
    mutating func restore(_ learned: LearnedCalibration, anchorIDs: [String]) throws(LearnedCalibration.Mismatch) {
        let site0 = siteModel.measuredPowerDBm - siteModel.pathLossExponent * Self.l4
        guard abs(learned.site.levelDBm - site0) <= settings.siteLevelRangeDB,
              settings.exponentRange.contains(learned.site.exponent) else {
            throw LearnedCalibration.Mismatch(description: "site level \(learned.site.levelDBm) dBm at 4 m or "
                                              + "exponent \(learned.site.exponent) is outside the learning bounds")
        }
        var p = parameters
        p.siteLevel = learned.site.levelDBm
        p.siteExponent = learned.site.exponent
        p.siteSigma = learned.site.uncertainty
        var index: [String: Int] = [:]
        for (i, id) in anchorIDs.enumerated() { index[id] = i }
        for e in learned.anchors {
            guard let i = index[e.id] else { continue }
            let shares = !priorUncertainties[i].shared.isZero
            guard shares == e.sharesSite else {
                throw LearnedCalibration.Mismatch(description: "anchor \(e.id): its venue calibration changed since "
                                                  + "this was learned")
            }
            let baseLevel = shares ? p.siteLevel
                : priorModels[i].measuredPowerDBm - priorModels[i].pathLossExponent * Self.l4
            let baseExponent = shares ? p.siteExponent : priorModels[i].pathLossExponent
            let level = e.measuredPowerDBm - e.pathLossExponent * Self.l4 - baseLevel
            let exponent = e.pathLossExponent - baseExponent
            guard abs(level) <= settings.anchorLevelRangeDB + 1e-9, abs(exponent) <= settings.anchorExponentRange + 1e-9,
                  settings.exponentRange.contains(e.pathLossExponent) else {
                throw LearnedCalibration.Mismatch(description: "anchor \(e.id): level or exponent outside the "
                                                  + "learning bounds")
            }
            p.level[i] = level
            p.exponent[i] = exponent
            p.ownSigma[i] = e.uncertainty
            p.samples[i] = e.samples
        }
        parameters = p
        models = models.indices.map { model($0, p) }
        uncertainties = models.indices.map { i in
            priorUncertainties[i].shared.isZero
                ? AnchorUncertainty(shared: .none, own: p.ownSigma[i])
                : AnchorUncertainty(shared: p.siteSigma, own: p.ownSigma[i])
        }
        samples = p.samples
        counters = learned.counters
        if phase == .collecting { phase = .learning }
        changed = true
    }
}
