import FoundationEssentials
import Glibc

/// Learns the anchors' path-loss models from the fixes the engine already makes: no survey, no truth.
///
/// Every update tick with enough geometry leaves a record: the tick's measurements (one per anchor heard) and the
/// fix. Every `Settings.refitEveryRecords` records (and at most once a `Settings.refitIntervalSeconds`), a robust EM
/// pass over the last `Settings.windowRecords` of them alternates two steps, the joint estimate of positions and
/// models (Pajovic et al., "An unsupervised indoor localization method based on received signal strength (RSS)
/// measurements", IEEE GLOBECOM 2015, estimate each access point's path-loss coefficient with the locations by EM;
/// Li et al., arXiv 2406.14664, 2024, estimate transmit power and exponent with the positions of 50 BLE nodes):
/// - each record's position is solved again under the current models (the engine's `PositionSolver` from its fix,
///   Huber, within the venue's bounds);
/// - the models are fitted on those positions by Huber IRLS, in two levels as the prior measured them
///   (`UncalibratedPrior`): one site level and slope that every uncalibrated anchor shares, with the formats'
///   default as its prior mean, and each anchor's own level and slope around it. An anchor a survey fitted keeps
///   its survey's model as its prior mean, with the survey's standard errors: where a survey has data, it counts.
///
/// Guards, so that it cannot run away:
/// - bounds on every parameter (`Settings`);
/// - only records with at least three anchors whose geometry alone places the target within 3 m count;
/// - a proposal is accepted only when a held-out check agrees: fitted on half of the window's blocks of records,
///   it must lower the robust cost of the other half (positions solved again) against the models in use, both ways;
/// - after an accepted update, when the cost of new records under the new models is worse than it was under the
///   old ones by `Settings.freezeRatio`, the update is undone and learning freezes for `Settings.freezeRecords`.
public struct SelfCalibration: Sendable {
    /// The tunables, with the documented defaults (docs/positioning.md, "Self-calibration").
    public struct Settings: Sendable, Hashable {
        /// Records between refits.
        public var refitEveryRecords = 60
        /// And at least this much time between refits, seconds: many targets make many records, and one refit a
        /// minute is plenty for models that change with furniture and seasons, not seconds.
        public var refitIntervalSeconds = 60.0
        /// Records kept (the newest).
        public var windowRecords = 900
        /// Records needed before the first refit.
        public var minimumRecords = 120
        /// Anchors a record needs.
        public var minimumAnchors = 3
        /// The geometry alone must place a record's target this well (1-σ of its weaker direction), metres.
        public var maximumGeometrySigmaMeters = 3.0
        /// Alternations of the EM pass.
        public var iterations = 4
        /// What one measurement counts for against the priors: the ticks of one target are strongly correlated
        /// (its place changes little from one to the next, and so do the shadowing and the fix's error), so 1 in 20
        /// counts. Chosen on the shared sets: with every measurement counted in full, the exponent ran 5 prior
        /// sigmas from the survey's in the WUT flat (learned 3.47, surveyed 2.02; docs/positioning.md).
        public var effectiveSampleShare = 0.05
        /// Huber threshold, in sigmas.
        public var huberThreshold = 1.5
        /// The site level may move this far from the default, dB.
        public var siteLevelRangeDB = 20.0
        /// The exponent stays in this range.
        public var exponentRange: ClosedRange<Double> = 1.2...5.0
        /// An anchor's own level may move this far from its prior mean, dB.
        public var anchorLevelRangeDB = 8.0
        /// An anchor's own exponent may move this far from its prior mean.
        public var anchorExponentRange = 1.0
        /// A proposal must lower the held-out cost by at least this share.
        public var heldOutMargin = 0.002
        /// Records per block of the held-out split.
        public var blockRecords = 15
        /// The freeze: new records' mean cost above the old models' by this factor undoes the update.
        public var freezeRatio = 1.15
        /// Records after an update whose cost is compared.
        public var freezeCheckRecords = 60
        /// Records learning stays frozen after an undone update.
        public var freezeRecords = 900
        /// The least uncertainty a learned model claims, whatever its standard errors say: the rms difference
        /// between what the replays of the shared sets learn and what their surveys fit
        /// (docs/positioning.md, "Self-calibration").
        public var learnedFloor = ModelUncertainty(levelSigmaDB: 1.4, exponentSigma: 0.46)
        /// The site bias field learned with the models: each anchor's residuals at the records' positions (solved
        /// again), fitted as a survey's are (`ResidualField`, these hyperparameters, tabulated every 2 m rather than
        /// a survey's 0.5 m: ℓ is 4 m, and a site's solver reads the field in every solve); nil: models only. The engine turns it off where it applies no field
        /// (static scans, `EngineConfiguration.usesResidualField`).
        public var field: ResidualField.Parameters? = {
            var p = ResidualField.Parameters()
            p.gridMeters = 2
            return p
        }()
        /// A learned layer's bins at most (coarser bins beyond): its cost is m³ once and m² per grid node, and a
        /// site of 100 receivers fits one per receiver.
        public var fieldMaximumBins = 60
        /// The field is fitted again at most this often, seconds (with the first accepted update of the models,
        /// then with the first after each interval): what it maps, walls and furniture, changes over days.
        public var fieldIntervalSeconds = 600.0
        /// Records of an anchor its learned field needs; with fewer it has none.
        public var fieldMinimumRecords = 30
        /// A learned layer is tabulated over its records' extent and this many correlation lengths around it
        /// (within the venue's bounds): beyond three the fitted bias is under 1.2% of its nearest value.
        public var fieldMarginLengths = 3.0

        /// The defaults.
        public init() {}
    }

    /// One tick's worth of evidence: the measurements and the engine's fix.
    public struct Record: Sendable {
        /// The anchors (table indices) of `measurements`, in order.
        var anchors: [Int]
        var measurements: [RSSIMeasurement]
        var x: Double, y: Double
        /// The robust cost per measurement at the fix under the models in use when it was made.
        var costAtFix: Double
    }

    /// A model per anchor as learned, with how well it is known.
    public struct AnchorState: Sendable, Hashable {
        /// The model in use (`measuredPowerDBm` at 1 m, exponent, the venue's shadowing sigma).
        public var model: PathLossModel
        /// Its uncertainty (after the floor).
        public var uncertainty: AnchorUncertainty
        /// Measurements of the anchor in the records of the last accepted fit.
        public var samples: Int
        /// How much was learned: 1 − σ_learned / σ_prior of the level, in [0, 1].
        public var confidence: Double
    }

    /// What learning is doing.
    public enum Phase: String, Sendable, Hashable {
        /// Collecting records before the first refit.
        case collecting
        /// Refitting as records come.
        case learning
        /// An update made things worse: it was undone, and learning waits.
        case frozen
    }

    /// Counts of what happened.
    public struct Counters: Sendable, Hashable {
        /// Ticks kept as evidence (enough anchors and geometry).
        public var records = 0
        /// Refits tried: each ends accepted or rejected.
        public var refits = 0
        /// Proposals taken.
        public var accepted = 0
        /// Proposals the held-out check refused.
        public var rejectedHeldOut = 0
        /// Updates undone when the records after them fitted worse.
        public var undone = 0
        /// All zero.
        public init() {}
    }

    public let settings: Settings
    /// The venue's own models and uncertainties (the priors), by anchor index.
    let priorModels: [PathLossModel]
    let priorUncertainties: [AnchorUncertainty]
    /// The site's prior model (the venue's default), for the shared anchors.
    let siteModel: PathLossModel
    let loss: RobustLoss
    let solver: PositionSolver
    /// The records kept: the window and up to as many older ones, dropped all at once when there are twice the
    /// window (dropping the oldest with every record moved the whole window each time: 0.9% of a site solver's CPU).
    private var stored: [Record] = []
    /// The window: the newest `Settings.windowRecords` records.
    var records: [Record] { Array(stored.suffix(settings.windowRecords)) }
    private var sinceRefit = 0
    private var lastRefitTime = -Double.infinity
    private var lastFieldTime = -Double.infinity
    /// The models in use, by anchor index, and the previous ones (for an undo).
    public internal(set) var models: [PathLossModel]
    public internal(set) var uncertainties: [AnchorUncertainty]
    private var previous: (models: [PathLossModel], uncertainties: [AnchorUncertainty], parameters: Parameters,
                           fields: [ResidualField.Layer?])?
    /// Each anchor's bias field in use: a survey's where it has one (kept), learned where not (or none), by index.
    public internal(set) var fields: [ResidualField.Layer?]
    /// The survey's layers, by anchor index.
    private let surveyFields: [ResidualField.Layer?]
    /// Where learned layers may lie: the venue's bounds, when it has them.
    private let bounds: Venue.Bounds?
    /// The parameters behind `models`.
    var parameters: Parameters
    /// Cost per measurement of the window under the models before the last update, and the new records' since.
    private var costBefore = 0.0
    private var costAfter: (sum: Double, count: Int) = (0, 0)
    private var frozenUntil = 0
    public internal(set) var samples: [Int]
    public internal(set) var phase = Phase.collecting
    public internal(set) var counters = Counters()
    /// Learned site bias fields taken (each after an accepted update of the models) and refused by their held-out
    /// check (the models' update stands). Not in `Counters`: the learned-calibration file keeps models only
    /// (docs/formats.md), and a field is learned again after a restart.
    public internal(set) var fieldCounters = (accepted: 0, rejected: 0)
    /// Each anchor's prior mean own level offset, dB: 0, or its gain from the links between receivers
    /// (`PairCalibration`), with that gain's sigma replacing the prior's.
    private var gainPriors: [PairCalibration.Gain?]
    /// Whether the models changed since `takeChange()` was last called.
    var changed = false {
        didSet { if changed { revision += 1 } }
    }
    /// Goes up with every refit and every change of the models: readers of `snapshot` need not look again while
    /// it stands.
    public internal(set) var revision = 0

    /// Learning for a venue's anchors, from their models and uncertainties as the venue gives them.
    init(settings: Settings, models: [PathLossModel], uncertainties: [AnchorUncertainty], site: PathLossModel,
         bounds: Venue.Bounds?, fields: [ResidualField.Layer?]? = nil) {
        self.settings = settings
        self.bounds = bounds
        surveyFields = fields ?? Array(repeating: nil, count: models.count)
        self.fields = surveyFields
        priorModels = models
        priorUncertainties = uncertainties
        siteModel = site
        loss = .huber(settings.huberThreshold)
        solver = PositionSolver(loss: loss, bounds: bounds, maxIterations: 8)
        self.models = models
        self.uncertainties = uncertainties
        samples = Array(repeating: 0, count: models.count)
        gainPriors = Array(repeating: nil, count: models.count)
        parameters = Parameters(siteLevel: site.measuredPowerDBm - site.pathLossExponent * Self.l4,
                                siteExponent: site.pathLossExponent,
                                level: Array(repeating: 0, count: models.count),
                                exponent: Array(repeating: 0, count: models.count),
                                siteSigma: UncalibratedPrior.site,
                                ownSigma: uncertainties.map(\.own), samples: samples)
    }

    /// The anchors' state, by anchor index.
    public var anchorStates: [AnchorState] {
        models.indices.map { i in
            let prior = priorUncertainties[i]
            let p = (prior.shared.variance(atLogDistance: 0) + prior.own.variance(atLogDistance: 0)).squareRoot()
            let u = uncertainties[i]
            let s = (u.shared.variance(atLogDistance: 0) + u.own.variance(atLogDistance: 0)).squareRoot()
            return AnchorState(model: models[i], uncertainty: u, samples: samples[i],
                               confidence: p > 0 ? min(max(1 - s / p, 0), 1) : 1)
        }
    }

    /// True once after the models changed (an accepted update, an undo, a restore).
    mutating func takeChange() -> Bool {
        defer { changed = false }
        return changed
    }

    /// Whether a tick's measurements make a record: enough anchors, and a geometry that places the target.
    func qualifies(_ measurements: [RSSIMeasurement], x: Double, y: Double) -> Bool {
        guard measurements.count >= settings.minimumAnchors else { return false }
        var i00 = 0.0, i01 = 0.0, i11 = 0.0
        for m in measurements {
            let (_, gx, gy) = m.linearize(x: x, y: y)
            i00 += gx * gx; i01 += gx * gy; i11 += gy * gy
        }
        // The smaller eigenvalue of the information: the weaker direction's 1/σ².
        let half = 0.5 * (i00 + i11), d = (0.25 * (i00 - i11) * (i00 - i11) + i01 * i01).squareRoot()
        let s = settings.maximumGeometrySigmaMeters
        return half - d >= 1 / (s * s)
    }

    /// Adds a tick's record; refits when due. Returns true when the models changed.
    mutating func add(anchors: [Int], measurements: [RSSIMeasurement], x: Double, y: Double, t: Double) -> Bool {
        guard qualifies(measurements, x: x, y: y) else { return false }
        let cost = Self.cost(measurements, x: x, y: y, loss: loss) / Double(measurements.count)
        stored.append(Record(anchors: anchors, measurements: measurements, x: x, y: y, costAtFix: cost))
        if stored.count >= 2 * settings.windowRecords { stored.removeFirst(stored.count - settings.windowRecords) }
        counters.records += 1
        sinceRefit += 1
        if previous != nil {
            costAfter.sum += cost
            costAfter.count += 1
            if costAfter.count >= settings.freezeCheckRecords { checkLastUpdate() }
        }
        if phase == .frozen {
            guard counters.records >= frozenUntil else { return takeChange() }
            phase = .learning
        }
        if stored.count >= settings.minimumRecords, sinceRefit >= settings.refitEveryRecords,
           t - lastRefitTime >= settings.refitIntervalSeconds {
            sinceRefit = 0
            lastRefitTime = t
            refit()
        }
        return takeChange()
    }

    /// Undoes the last update when the records since cost more under it than the window did before it.
    private mutating func checkLastUpdate() {
        guard let old = previous else { return }
        let after = costAfter.sum / Double(costAfter.count)
        previous = nil
        costAfter = (0, 0)
        guard after > costBefore * settings.freezeRatio else { return }
        models = old.models
        uncertainties = old.uncertainties
        parameters = old.parameters
        fields = old.fields
        counters.undone += 1
        phase = .frozen
        frozenUntil = counters.records + settings.freezeRecords
        changed = true
    }

    /// The parameters of one fit: the site's level at 4 m and exponent, and each anchor's own offsets from its
    /// prior mean (the site's, for a shared anchor).
    struct Parameters: Sendable {
        var siteLevel: Double, siteExponent: Double
        var level: [Double], exponent: [Double]
        /// Posterior sigmas.
        var siteSigma = ModelUncertainty.none
        var ownSigma: [ModelUncertainty]
        var samples: [Int]
    }

    static let l4 = 10 * log10(ModelUncertainty.referenceDistanceMeters)


    /// The model of anchor i under parameters p.
    func model(_ i: Int, _ p: Parameters) -> PathLossModel {
        let shared = !priorUncertainties[i].shared.isZero
        let baseLevel = shared ? p.siteLevel : priorModels[i].measuredPowerDBm - priorModels[i].pathLossExponent * Self.l4
        let baseExponent = shared ? p.siteExponent : priorModels[i].pathLossExponent
        let n = min(max(baseExponent + p.exponent[i], settings.exponentRange.lowerBound), settings.exponentRange.upperBound)
        return PathLossModel(measuredPowerDBm: baseLevel + p.level[i] + n * Self.l4, pathLossExponent: n,
                             shadowingSigmaDB: priorModels[i].shadowingSigmaDB)
    }

    /// One refit: proposal on each half held out against the other, then on all records.
    private mutating func refit() {
        counters.refits += 1
        revision += 1
        if phase == .collecting { phase = .learning }
        let start = parameters
        let records = self.records
        var halves: ([Record], [Record]) = ([], [])
        for (k, r) in records.enumerated() {
            if (k / settings.blockRecords) % 2 == 0 { halves.0.append(r) } else { halves.1.append(r) }
        }
        for (train, test) in [(halves.0, halves.1), (halves.1, halves.0)] {
            let proposal = fit(train, from: start)
            let old = heldOutCost(test, start, fields), new = heldOutCost(test, proposal, fields)
            guard new < old * (1 - settings.heldOutMargin) else {
                counters.rejectedHeldOut += 1
                return
            }
        }
        let all = fit(records, from: start)
        costBefore = records.map(\.costAtFix).reduce(0, +) / Double(records.count)
        previous = (models, uncertainties, parameters, fields)
        refitField(all, records: records, halves: halves, t: lastRefitTime)
        costAfter = (0, 0)
        parameters = all
        models = models.indices.map { model($0, all) }
        uncertainties = models.indices.map { i in
            let floor = settings.learnedFloor
            let own = ModelUncertainty(levelSigmaDB: max(all.ownSigma[i].levelSigmaDB, floor.levelSigmaDB),
                                       exponentSigma: max(all.ownSigma[i].exponentSigma, floor.exponentSigma))
            guard !priorUncertainties[i].shared.isZero else {
                // A surveyed anchor: the survey's own uncertainty, unless the traffic moved it.
                let moved = abs(all.level[i]) > 2 * priorUncertainties[i].own.levelSigmaDB
                return AnchorUncertainty(shared: .none, own: moved ? own : priorUncertainties[i].own)
            }
            return AnchorUncertainty(shared: all.siteSigma, own: own)
        }
        samples = all.samples
        counters.accepted += 1
        changed = true
    }

    /// Takes the receivers' gains from the links between them as the prior of each uncalibrated anchor's own
    /// level offset, and as its offset until traffic says more: a receiver that hears everything 5 dB louder is
    /// known to from its first link fit, not after minutes of tags.
    mutating func adoptPairGains(_ fit: PairCalibration.Fit) {
        var p = parameters
        for i in models.indices {
            guard let g = fit.gains[i], !priorUncertainties[i].shared.isZero else { continue }
            let offset = min(max(g.offsetDB, -settings.anchorLevelRangeDB), settings.anchorLevelRangeDB)
            let sigma = max(g.sigmaDB, 0.5)
            gainPriors[i] = PairCalibration.Gain(offsetDB: offset, sigmaDB: sigma)
            p.level[i] = offset
            p.ownSigma[i] = ModelUncertainty(levelSigmaDB: max(sigma, settings.learnedFloor.levelSigmaDB),
                                             exponentSigma: priorUncertainties[i].own.exponentSigma)
        }
        parameters = p
        models = models.indices.map { model($0, p) }
        uncertainties = models.indices.map { i in
            priorUncertainties[i].shared.isZero ? uncertainties[i] : AnchorUncertainty(shared: p.siteSigma, own: p.ownSigma[i])
        }
        changed = true
    }

    /// The robust cost of records with their positions solved again under parameters p and fields f.
    private func heldOutCost(_ test: [Record], _ p: Parameters, _ f: [ResidualField.Layer?]) -> Double {
        let ms = models.indices.map { model($0, p) }
        var total = 0.0
        for r in test {
            let m = measurements(r, ms, f)
            let (x, y) = solve(m, x: r.x, y: r.y)
            total += Self.cost(m, x: x, y: y, loss: loss)
        }
        return total
    }

    /// A record's measurements under models ms and fields f.
    private func measurements(_ r: Record, _ ms: [PathLossModel], _ f: [ResidualField.Layer?]) -> [RSSIMeasurement] {
        var m = r.measurements
        for k in m.indices {
            m[k].model = ms[r.anchors[k]]
            m[k].field = f[r.anchors[k]]
        }
        return m
    }

    /// The learned field after an accepted update of the models to p: fitted on each half of the window's blocks,
    /// it must lower the robust cost of the other half (positions solved again) against the fields in use, both
    /// ways, as a proposal of models must; then it is fitted on every record. A survey's layers stay.
    private mutating func refitField(_ p: Parameters, records: [Record], halves: ([Record], [Record]), t: Double) {
        guard settings.field != nil, t - lastFieldTime >= settings.fieldIntervalSeconds else { return }
        // Nothing to fit (and no solves spent) unless some anchor without a survey's layer has the records.
        var counts = Array(repeating: 0, count: models.count)
        for r in records { for a in r.anchors where surveyFields[a] == nil { counts[a] += 1 } }
        guard counts.contains(where: { $0 >= settings.fieldMinimumRecords }) else { return }
        lastFieldTime = t
        for (train, test) in [(halves.0, halves.1), (halves.1, halves.0)] {
            let proposal = fitField(train, p)
            let old = heldOutCost(test, p, fields), new = heldOutCost(test, p, proposal)
            guard new < old * (1 - settings.heldOutMargin) else {
                fieldCounters.rejected += 1
                return
            }
        }
        fields = fitField(records, p)
        fieldCounters.accepted += 1
    }

    /// Each anchor's bias field fitted on records: positions solved under parameters p and the fields in use,
    /// each measurement's residual against its plain model (walls included, no field) there, and those residuals
    /// regressed as a survey's (`ResidualRegression`), over the records' extent. Anchors with a survey's layer
    /// keep it; those with too few records get none.
    private func fitField(_ rs: [Record], _ p: Parameters) -> [ResidualField.Layer?] {
        guard let parameters = settings.field else { return fields }
        let ms = models.indices.map { model($0, p) }
        var rows: [[CalibrationSample]] = Array(repeating: [], count: models.count)
        var residuals: [[Double]] = Array(repeating: [], count: models.count)
        for r in rs {
            let m = measurements(r, ms, fields)
            let (x, y) = solve(m, x: r.x, y: r.y)
            for (k, a) in r.anchors.enumerated() where surveyFields[a] == nil {
                var plain = m[k]
                plain.field = nil
                rows[a].append(CalibrationSample(anchor: "", rssiDBm: plain.rssiDBm, x: x, y: y, z: 0))
                residuals[a].append(plain.residual(x: x, y: y).residualDB)
            }
        }
        let margin = settings.fieldMarginLengths * parameters.lengthScaleMeters
        return models.indices.map { a in
            guard surveyFields[a] == nil else { return surveyFields[a] }
            guard rows[a].count >= settings.fieldMinimumRecords else { return nil }
            var area = Venue.Bounds(minX: rows[a].map(\.x).min()! - margin, minY: rows[a].map(\.y).min()! - margin,
                                    maxX: rows[a].map(\.x).max()! + margin, maxY: rows[a].map(\.y).max()! + margin)
            if let b = bounds {
                area = Venue.Bounds(minX: max(area.minX, b.minX), minY: max(area.minY, b.minY),
                                    maxX: min(area.maxX, b.maxX), maxY: min(area.maxY, b.maxY))
            }
            return ResidualRegression(rows: rows[a], residuals: residuals[a], parameters: parameters,
                                      maximumBins: settings.fieldMaximumBins).layer(over: area)
        }
    }

    /// The EM pass on some records, from parameters p.
    private func fit(_ rs: [Record], from p0: Parameters) -> Parameters {
        var p = p0
        var positions = rs.map { ($0.x, $0.y) }
        let count = models.count
        let sharedAnchor = (0..<count).map { !priorUncertainties[$0].shared.isZero }
        let siteLevel0 = siteModel.measuredPowerDBm - siteModel.pathLossExponent * Self.l4
        let sitePrior = UncalibratedPrior.site
        for _ in 0..<settings.iterations {
            let ms = (0..<count).map { model($0, p) }
            // Positions under the current models.
            for (k, r) in rs.enumerated() {
                positions[k] = solve(measurements(r, ms, fields), x: positions[k].0, y: positions[k].1)
            }
            // Rows: for each measurement, the lever L = 10 log10(d / 4 m), the RSSI and its sigma. The models'
            // expectation is level − n L less walls and fields, so the RSSI is compared to the model with the walls'
            // and field's terms taken off (predicted − plain model).
            var rows: [[(l: Double, y: Double, s: Double)]] = Array(repeating: [], count: count)
            for (k, r) in rs.enumerated() {
                let (x, y) = positions[k]
                for (j, a) in r.anchors.enumerated() {
                    var m = r.measurements[j]
                    m.model = ms[a]
                    m.field = fields[a]
                    let d = m.distanceMeters(x: x, y: y)
                    let l = ModelUncertainty.logDistance(d)
                    let plain = ms[a].rssiDBm(atDistanceMeters: d)
                    let extra = m.predictedRSSIDBm(x: x, y: y) - plain
                    rows[a].append((l, m.rssiDBm - extra, m.sigmaDB))
                }
            }
            // The site: every shared anchor's rows less its own offsets.
            var siteRows: [(l: Double, y: Double, s: Double)] = []
            for a in 0..<count where sharedAnchor[a] {
                for row in rows[a] { siteRows.append((row.l, row.y - p.level[a] + p.exponent[a] * row.l, row.s)) }
            }
            if !siteRows.isEmpty {
                let f = line(siteRows, priorLevel: siteLevel0, priorExponent: siteModel.pathLossExponent,
                             prior: sitePrior)
                p.siteLevel = min(max(f.level, siteLevel0 - settings.siteLevelRangeDB), siteLevel0 + settings.siteLevelRangeDB)
                p.siteExponent = min(max(f.exponent, settings.exponentRange.lowerBound), settings.exponentRange.upperBound)
                p.siteSigma = f.sigma
            }
            // Each anchor's own offsets around its base.
            for a in 0..<count {
                p.samples[a] = rows[a].count
                guard !rows[a].isEmpty else { continue }
                let base = model(a, Parameters(siteLevel: p.siteLevel, siteExponent: p.siteExponent,
                                               level: Array(repeating: 0, count: count),
                                               exponent: Array(repeating: 0, count: count),
                                               ownSigma: p.ownSigma, samples: p.samples))
                let baseLevel = base.measuredPowerDBm - base.pathLossExponent * Self.l4
                let own = rows[a].map { (l: $0.l, y: $0.y - (baseLevel - base.pathLossExponent * $0.l), s: $0.s) }
                let prior = priorUncertainties[a].own
                let gain = gainPriors[a]
                let f = line(own, priorLevel: gain?.offsetDB ?? 0, priorExponent: 0,
                             prior: ModelUncertainty(levelSigmaDB: max(gain?.sigmaDB ?? prior.levelSigmaDB, 0.05),
                                                     exponentSigma: max(prior.exponentSigma, 0.005)))
                p.level[a] = min(max(f.level, -settings.anchorLevelRangeDB), settings.anchorLevelRangeDB)
                p.exponent[a] = min(max(f.exponent, -settings.anchorExponentRange), settings.anchorExponentRange)
                p.ownSigma[a] = f.sigma
            }
        }
        return p
    }

    /// Huber IRLS fit of `y = level − n l` with a Gaussian prior on (level, n); the posterior sigmas.
    private func line(_ rows: [(l: Double, y: Double, s: Double)], priorLevel: Double, priorExponent: Double,
                      prior: ModelUncertainty) -> (level: Double, exponent: Double, sigma: ModelUncertainty) {
        var level = priorLevel, n = priorExponent
        let pl = 1 / (prior.levelSigmaDB * prior.levelSigmaDB), pn = 1 / (prior.exponentSigma * prior.exponentSigma)
        var equations = LineNormalEquations(level: priorLevel, exponent: priorExponent, levelInformation: pl,
                                            exponentInformation: pn)
        for _ in 0..<8 {
            equations = LineNormalEquations(level: priorLevel, exponent: priorExponent, levelInformation: pl,
                                            exponentInformation: pn)
            for r in rows {
                let z = (r.y - (level - n * r.l)) / r.s
                equations.add(l: r.l, y: r.y, weight: loss.weight(z) / (r.s * r.s) * settings.effectiveSampleShare)
            }
            guard let (newLevel, newN) = equations.solve() else { break }
            let moved = abs(newLevel - level) + abs(newN - n)
            level = newLevel
            n = newN
            if moved < 1e-4 { break }
        }
        let sigma = equations.inverse.map {
            ModelUncertainty(levelSigmaDB: $0.levelLevel.squareRoot(), exponentSigma: $0.exponentExponent.squareRoot())
        } ?? prior
        return (level, n, sigma)
    }

    /// The position under the measurements' models, from (x, y): the engine's solver (Huber, in the venue's
    /// bounds), with a prior of negligible weight at the start.
    func solve(_ m: [RSSIMeasurement], x: Double, y: Double) -> (Double, Double) {
        let s = solver.solve(m, priorMean: [x, y], priorInformation: Self.startPrior, start: [x, y])
        return (s.state[0], s.state[1])
    }

    /// A prior at the start worth almost nothing: it only keeps a solve with too little information defined.
    static let startPrior = Matrix.diagonal([1e-3, 1e-3])

    /// Σ ρ of the normalized residuals at (x, y).
    static func cost(_ m: [RSSIMeasurement], x: Double, y: Double, loss: RobustLoss) -> Double {
        var total = 0.0
        for k in m.indices {
            let (r, s) = m[k].residual(x: x, y: y)
            total += loss.loss(r / s)
        }
        return total
    }
}
