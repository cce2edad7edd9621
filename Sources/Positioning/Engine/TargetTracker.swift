import BlueDotCore
import FoundationEssentials
import Glibc

/// The state of one target: per-anchor RSSI filters, the Kalman filter, the floor and its fix grid.
///
/// Memory holds one fixed-size `AnchorRSSIFilter` per anchor heard lately: an anchor not heard for
/// `forgetAnchorSeconds` is dropped (its filter holds nothing by then), so a tag that walks past hundreds of
/// receivers keeps only those around it, whatever the venue's size.
struct TargetTracker {
    let target: String
    /// Grid origin (the target's first observation) and the index of the next grid point to emit.
    let gridOrigin: Double
    var gridIndex = 0
    var lastObservationTime: Double
    /// The filters of the anchors heard lately, by anchor index.
    var filters: [Int: AnchorRSSIFilter] = [:]
    /// Anchors with samples since the last tick, in the order first heard.
    var pending: [Int] = []
    /// The anchors with a filter, in the order first heard.
    var heardAnchors: [Int] = []
    /// When quiet anchors are looked for next.
    var nextForget = -Double.infinity
    var filter: InteractingMultipleModel?
    /// The filter's own time (its last update's sample time, or the last tick without samples).
    var lastTickTime: Double?
    /// Grid time of the last update, and how many anchors it heard.
    var lastUpdateTime: Double?
    var lastHeardCount = 0
    var lastHeardTime: Double
    var lastGood: (x: Double, y: Double)?
    var floorEstimator = FloorEstimator()
    /// The room state (hysteresis over the venue's rooms).
    var room = RoomTracker()
    /// The fixes of the last few seconds, for the room's lagged, smoothed position (`roomLagSeconds`).
    var roomSmoother: FixedLagSmoother?
    /// The time of the smoothed position the room was last decided at (-∞: none since the smoother started).
    var roomDecidedAt = -Double.infinity
    /// Covariance-matching scale on the trilateration fixes' covariance.
    var fixScale = 1.0
    /// The particles that keep the target to paths through openings, when the venue has walls and the
    /// configuration uses them (`EngineConfiguration.usesWalls`), and the grid time they were last moved to.
    var particles: WallParticleFilter?
    var particlesTime = 0.0
    /// The anchors of the last tick's measurements, in their order.
    var tickAnchors: [Int] = []
    /// The position covariance the anchors' model errors add to the last update's fix (`ModelErrorPropagation`),
    /// m²: kept for the fixes predicted from it.
    var modelCovariance = (sxx: 0.0, sxy: 0.0, syy: 0.0)
    /// The last fix's radius without the model errors: what its room is decided with. A model error moves a fix
    /// and the fixes around it alike, so it does not make one room of the venue's map likelier than its
    /// neighbour; spread over the map, it would put the mass outside every room instead (docs/positioning.md,
    /// "No survey").
    var roomRadius = 0.0
    /// The filter's speed at the last fix (m/s): how the room tracker tells a target standing still.
    var filterSpeed = 0.0
    /// The last update's measurements and fix, for self-calibration and the site evidence; taken by the engine.
    var record: (anchors: [Int], measurements: [RSSIMeasurement], x: Double, y: Double, t: Double)?

    init(target: String, firstTime: Double) {
        self.target = target
        gridOrigin = firstTime
        lastObservationTime = firstTime
        lastHeardTime = firstTime
    }

    /// An anchor not heard for this long (and at least three RSSI windows) loses its filter.
    static let forgetAnchorSeconds = 60.0

    /// Drops the filters of anchors last heard before `g` less the horizon; looked for every 10 s of grid time.
    mutating func forgetQuietAnchors(at g: Double, windowSeconds: Double) {
        guard g >= nextForget else { return }
        nextForget = g + 10
        let cutoff = g - max(Self.forgetAnchorSeconds, 3 * windowSeconds)
        heardAnchors.removeAll { a in
            guard let f = filters[a], f.lastTime < cutoff, !pending.contains(a) else { return false }
            filters[a] = nil
            return true
        }
    }

    /// The time of the next fix to emit.
    func nextGridTime(interval: Double) -> Double { gridOrigin + Double(gridIndex) * interval }

    /// Feeds one observation of anchor `a`; returns false when its filter rejected it as an outlier.
    mutating func add(anchor a: Int, t: Double, rssiDBm: Double, configuration c: EngineConfiguration) -> Bool {
        lastObservationTime = max(lastObservationTime, t)
        if filters.index(forKey: a) == nil {
            filters[a] = AnchorRSSIFilter(capacity: c.filterCapacity, windowSeconds: c.filterWindowSeconds,
                                          threshold: c.filterThreshold, sigmaFloorDB: c.filterSigmaFloorDB)
            heardAnchors.append(a)
        }
        let accepted = filters[a]!.add(t: t, rssiDBm: rssiDBm)
        if accepted, !pending.contains(a) { pending.append(a) }
        return accepted
    }

    /// Produces the fix at grid time g from everything added so far (all of it at or before g).
    ///
    /// A grid point less than `updateIntervalSeconds` after the previous update only predicts: the fix is the
    /// filter's state carried to g by the motion model, the filter itself is left as it is.
    mutating func tick(at g: Double, context: EngineContext) -> Location {
        let c = context.configuration
        if c.update != .snapshot, let imm = filter, let last = lastUpdateTime,
           g - last < c.updateIntervalSeconds - 1e-6 {
            return predictedFix(imm, at: g, context: context)
        }
        let fresh = !pending.isEmpty
        let (measurements, sampleTime) = collect(at: g, context: context)
        let heard = c.update == .snapshot ? (fresh || filter == nil ? measurements.count : 0) : measurements.count
        var k: ConstantVelocityKalman
        var restarted = false
        if c.update != .snapshot, var imm = filter {
            // The update sits at its samples' mean time (never before the filter's own time, never after g).
            let tm = heard > 0 && c.updatesAtSampleTime ? min(max(sampleTime, lastTickTime ?? g), g) : g
            let dt = tm - (lastTickTime ?? tm)
            imm.predict(dt: dt)
            if g - lastHeardTime > c.updateIntervalSeconds {
                imm.forEachModel { $0.dampVelocity(by: pow(0.5, dt / c.velocityHalfLifeSeconds)) }
            }
            if heard > 0 { fuse(measurements, into: &imm, context: context) }
            imm.forEachModel {
                $0.capSpeed(c.maximumSpeed)
                Self.confine(&$0, context: context)
            }
            filter = imm
            lastTickTime = tm
            if tm < g {
                // Reported at g: the state carried forward from the update's time.
                imm.predict(dt: g - tm)
                imm.forEachModel { Self.confine(&$0, context: context) }
            }
            k = imm.combined
        } else if c.update == .snapshot, heard == 0, var imm = filter {
            imm.predict(dt: g - (lastTickTime ?? g))
            filter = imm
            lastTickTime = g
            k = imm.combined
        } else {
            // A snapshot is already confined (the grid covers the bounds; the solver projects).
            var start = snapshot(measurements, context: context)
            start.clampPosition(to: context.bounds)
            var noises = [c.accelerationNoise]
            if let q = c.manoeuvreAccelerationNoise { noises.append(q) }
            filter = InteractingMultipleModel(initial: start, accelerationNoises: noises,
                                              switchRatePerSecond: c.modelSwitchRatePerSecond)
            lastTickTime = g
            k = start
            restarted = true
        }
        if c.update != .snapshot, let walls = context.walls {
            k = walled(k, at: g, restarted: restarted, heard: heard > 0, walls: walls, context: context)
        }
        lastUpdateTime = g
        lastHeardCount = heard
        if heard > 0 {
            lastHeardTime = g
            lastGood = (k.x[0], k.x[1])
            let prior = context.trilaterator.priorVariance
            if context.configuration.selfCalibration != nil || context.siteEvidence != nil {
                record = (tickAnchors, measurements, k.x[0], k.x[1], g)
            }
            let table = context.anchors.uncertainties, evident = context.evidentShared
            modelCovariance = ModelErrorPropagation.covariance(
                measurements, uncertainties: tickAnchors.map { a in
                    guard let evident, !table[a].shared.isZero else { return table[a] }
                    return AnchorUncertainty(shared: evident, own: table[a].own)
                },
                x: k.x[0], y: k.x[1], priorInformation: (1 / prior[0], 1 / prior[1]))
        }
        return fix(k, at: g, heard: heard, position: lastGood ?? (k.x[0], k.x[1]), context: context)
    }

    /// The filter's state with its position, position covariance and velocity taken from the wall-bound particles.
    /// They start from the filter's state (first tick, or a restart); after that they move to g, and when anchors
    /// were heard they are weighed by the filter's updated position (its Gaussian, tempered): the particles keep
    /// what the filter knows and add what it cannot, that the target went round the walls.
    private mutating func walled(_ k: ConstantVelocityKalman, at g: Double, restarted: Bool, heard: Bool,
                                 walls: WallMap, context: EngineContext) -> ConstantVelocityKalman {
        let c = context.configuration
        let floor = floorEstimator.floor ?? 0
        if restarted || particles == nil || particles?.floor != floor {
            // Seeded by the target's id (FNV-1a), so replays repeat.
            var seed: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in target.utf8 { seed = (seed ^ UInt64(byte)) &* 0x100_0000_01b3 }
            particles = WallParticleFilter(count: c.wallParticles, x: k.x[0], y: k.x[1], sxx: k.P[0, 0],
                                           sxy: k.P[0, 1], syy: k.P[1, 1], velocitySigma: c.initialVelocitySigma,
                                           walls: walls, floor: floor, seed: seed)
        } else {
            particles!.predict(dt: g - particlesTime, accelerationNoise: c.manoeuvreAccelerationNoise ?? c.accelerationNoise,
                               maximumSpeed: c.maximumSpeed, walls: walls)
        }
        particlesTime = g
        if heard {
            particles!.update(x: k.x[0], y: k.x[1], sxx: k.P[0, 0], sxy: k.P[0, 1], syy: k.P[1, 1],
                              temper: c.wallLikelihoodTemper, walls: walls)
        }
        let e = particles!.estimate(walls: walls)
        var out = k
        out.x[0] = e.x
        out.x[1] = e.y
        out.x[2] = e.vx
        out.x[3] = e.vy
        for i in 0..<2 {
            for j in 2..<4 {
                out.P[i, j] = 0
                out.P[j, i] = 0
            }
        }
        out.P[0, 0] = e.sxx
        out.P[0, 1] = e.sxy
        out.P[1, 0] = e.sxy
        out.P[1, 1] = e.syy
        return out
    }

    /// A filtered Gaussian is truncated to the bounds (or its mean clamped).
    private static func confine(_ k: inout ConstantVelocityKalman, context: EngineContext) {
        if context.configuration.truncateToBounds { k.truncate(to: context.bounds) } else { k.clampPosition(to: context.bounds) }
    }

    /// A fix between updates: the filter predicted to g (a copy; the filter keeps its own time).
    private mutating func predictedFix(_ imm: InteractingMultipleModel, at g: Double,
                                       context: EngineContext) -> Location {
        let c = context.configuration
        var imm = imm
        let dt = g - (lastTickTime ?? g)
        if dt > 0 {
            imm.predict(dt: dt)
            imm.forEachModel {
                $0.capSpeed(c.maximumSpeed)
                Self.confine(&$0, context: context)
            }
        }
        let k = imm.combined
        let heard = lastHeardCount
        return fix(k, at: g, heard: heard, position: heard > 0 ? (k.x[0], k.x[1]) : lastGood ?? (k.x[0], k.x[1]),
                   context: context)
    }

    /// The fix reported at grid time g from a filter state, and the grid moved on.
    private mutating func fix(_ k: ConstantVelocityKalman, at g: Double, heard: Int, position: (x: Double, y: Double),
                              context: EngineContext) -> Location {
        let c = context.configuration
        // The filter's covariance, scaled for the model error it does not see, and the anchors' stated model errors,
        // which it cannot average away (not scaled: they are model error, counted).
        let m = modelCovariance
        let s2 = c.radiusScale * c.radiusScale
        let r = AccuracyRadius.radius68(sxx: s2 * k.P[0, 0] + m.sxx, sxy: s2 * k.P[0, 1] + m.sxy,
                                        syy: s2 * k.P[1, 1] + m.syy)
        let scale = context.radiusCalibration?.scale(anchors: heard) ?? 1
        let radius = (r * r + c.radiusFloorMeters * c.radiusFloorMeters).squareRoot() * scale
        let own = AccuracyRadius.radius68(k.P) * c.radiusScale
        roomRadius = (own * own + c.radiusFloorMeters * c.radiusFloorMeters).squareRoot() * scale
        filterSpeed = k.speed
        gridIndex += 1
        let moving = c.reportsMotion && heard > 0
        return Location(timestamp: g, targetID: target, x: position.x, y: position.y, floor: floorEstimator.floor,
            horizontalAccuracyMeters: radius, speedMetersPerSecond: moving ? k.speed : nil,
            courseDegrees: moving && k.speed > 0.1 ? k.courseDegrees : nil, lastKnown: heard == 0, anchorCount: heard)
    }

    /// Updates a running filter with one tick's measurements, by the configured method.
    private mutating func fuse(_ measurements: [RSSIMeasurement], into imm: inout InteractingMultipleModel,
                               context: EngineContext) {
        let c = context.configuration
        if c.update == .rssi {
            let centroid = Trilaterator.weightedCentroid(measurements)
            imm.update(rssi: measurements, solver: context.solver, gate: c.gate,
                       alternativeStart: c.multiStart ? (centroid[0], centroid[1]) : nil)
            return
        }
        guard measurements.count >= c.trilaterationMinimumAnchors,
              let fix = context.trackingTrilaterator.locate(measurements) else {
            // Too few anchors for a fix of their own: the direct update uses them anyway.
            imm.update(rssi: measurements, solver: context.solver, gate: c.gate)
            return
        }
        // A posteriori variance factor of the fit, σ̂₀² = 2 Σρ / (n − 2): anchors that disagree with each other
        // more than their sigmas allow say the model is off here, so the fix is worth less than its covariance.
        let n = Double(measurements.count)
        let s0 = c.scalesFixByResidual && n > 2 ? max(2 * fix.cost / (n - 2), 1) : 1
        let nis = imm.update(x: fix.x, y: fix.y, covariance: (fixScale * s0) * Matrix2(fix.covariance))
        if c.fixNoiseAdaptation > 0, nis.isFinite {
            // Covariance matching on the fixes: E[νᵀS⁻¹ν] = 2 when R is right.
            let a = c.fixNoiseAdaptation
            fixScale = min(max(fixScale * (1 - a + a * min(nis, 20) / 2), 1), 9)
        }
    }

    /// A filter started from one trilateration fix (with the venue prior, so one or two anchors are fine).
    private func snapshot(_ measurements: [RSSIMeasurement], context: EngineContext) -> ConstantVelocityKalman {
        let c = context.configuration
        if measurements.count <= c.gridPosteriorMaxAnchors, let g = context.grid.estimate(measurements) {
            return ConstantVelocityKalman(x: g.x, y: g.y, positionCovariance: g.covariance,
                                          velocitySigma: c.initialVelocitySigma, accelerationNoise: c.accelerationNoise)
        }
        let fix = context.trilaterator.locate(measurements)
        let prior = context.trilaterator
        return ConstantVelocityKalman(
            x: fix?.x ?? prior.priorMean[0], y: fix?.y ?? prior.priorMean[1],
            positionCovariance: fix?.covariance ?? Matrix.diagonal(prior.priorVariance),
            velocitySigma: c.initialVelocitySigma, accelerationNoise: c.accelerationNoise)
    }

    /// This tick's measurement per anchor heard, and the floor vote.
    ///
    /// A snapshot uses every anchor still in its window (median); the filters use the samples that arrived
    /// since the last tick (their mean, or the window median with `.windowMedian`).
    private mutating func collect(at g: Double, context: EngineContext) -> ([RSSIMeasurement], Double) {
        let c = context.configuration
        let table = context.anchors
        let snapshot = c.update == .snapshot
        var out: [RSSIMeasurement] = []
        out.reserveCapacity(pending.count)
        var votes: [(floor: Int, rssiDBm: Double)] = []
        tickAnchors.removeAll(keepingCapacity: true)
        var timeSum = 0.0, sampleCount = 0
        // The device is at its height above the floor it is on (as of the previous tick).
        let height = context.targetHeightMeters + (floorEstimator.floor.flatMap { table.floorElevation[$0] } ?? 0)
        for a in snapshot ? heardAnchors : pending {
            let tick = filters[a]?.drainTick()
            let value: Double, count: Int
            if snapshot || c.rssiSource == .windowMedian {
                guard let w = filters[a]?.windowMedian(now: g) else { continue }
                (value, count) = (w.medianDBm, w.count)
            } else {
                guard let tick else { continue }
                (value, count) = (tick.meanDBm, tick.count)
            }
            if let tick {
                timeSum += tick.meanTime * Double(tick.count)
                sampleCount += tick.count
            }
            let model = table.models[a]
            let field = table.fields[a]
            // The model's sigma (the calibration residual) holds the packet jitter j once; averaging n packets
            // keeps only j²/n of it: σ² = σ_model² − j² (1 − 1/n), never below j². A bias field keeps that sigma
            // (it does not claim the variance it explained in-sample) and adds its own variance v(p) at p.
            // A body-shadow term integrated out by the grid posterior takes its variance out of that sigma.
            let b2 = c.usesBodyShadow ? c.bodyShadowSigmaDB.map { $0 * $0 } ?? 0 : 0
            let s2 = model.shadowingSigmaDB * model.shadowingSigmaDB - b2, j2 = c.jitterSigmaDB * c.jitterSigmaDB
            let sigma = c.sigmaScale * max(s2 - j2 * (1 - 1 / Double(count)), j2).squareRoot()
            let anchor = table.anchors[a]
            var m = RSSIMeasurement(anchorX: anchor.x, anchorY: anchor.y,
                                    heightDifferenceMeters: table.heights[a] - height,
                                    model: model, rssiDBm: value, sigmaDB: sigma)
            m.nearFieldMeters = c.nearFieldMeters
            m.field = field
            if let walls = context.measurementWalls {
                m.walls = walls
                m.floor = floorEstimator.floor ?? anchor.floor
            }
            out.append(m)
            tickAnchors.append(a)
            votes.append((anchor.floor, value))
        }
        pending.removeAll(keepingCapacity: true)
        forgetQuietAnchors(at: g, windowSeconds: c.filterWindowSeconds)
        floorEstimator.update(votes)
        return (out, sampleCount > 0 ? timeSum / Double(sampleCount) : g)
    }
}
