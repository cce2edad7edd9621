import Foundation

/// The state of one target: per-anchor RSSI filters, the Kalman filter, the floor and its fix grid.
///
/// Memory is bounded by the venue's anchor count: one fixed-size `AnchorRSSIFilter` per anchor heard.
struct TargetTracker {
    let target: String
    /// Grid origin (the target's first observation) and the index of the next grid point to emit.
    let gridOrigin: Double
    var gridIndex = 0
    var lastObservationTime: Double
    var filters: [AnchorRSSIFilter?]
    /// Anchors with samples since the last tick, in the order first heard.
    var pending: [Int] = []
    /// Every anchor this target has been heard by, in the order first heard.
    var heardAnchors: [Int] = []
    var kalman: ConstantVelocityKalman?
    var lastTickTime: Double?
    var lastHeardTime: Double
    var lastGood: (x: Double, y: Double)?
    var floorEstimator = FloorEstimator()

    init(target: String, firstTime: Double, anchorCount: Int) {
        self.target = target
        gridOrigin = firstTime
        lastObservationTime = firstTime
        lastHeardTime = firstTime
        filters = Array(repeating: nil, count: anchorCount)
    }

    /// The time of the next fix to emit.
    func nextGridTime(interval: Double) -> Double { gridOrigin + Double(gridIndex) * interval }

    /// Feeds one observation of anchor `a`.
    mutating func add(anchor a: Int, t: Double, rssiDBm: Double, configuration c: EngineConfiguration) {
        if filters[a] == nil {
            filters[a] = AnchorRSSIFilter(capacity: c.filterCapacity, windowSeconds: c.filterWindowSeconds,
                                          threshold: c.filterThreshold, sigmaFloorDB: c.filterSigmaFloorDB)
            heardAnchors.append(a)
        }
        if filters[a]!.add(t: t, rssiDBm: rssiDBm), !pending.contains(a) { pending.append(a) }
        lastObservationTime = max(lastObservationTime, t)
    }

    /// Produces the fix at grid time g from everything added so far (all of it at or before g).
    mutating func tick(at g: Double, context: EngineContext) -> LocationFix {
        let c = context.configuration
        let fresh = !pending.isEmpty
        let measurements = collect(at: g, context: context)
        let heard = c.update == .snapshot ? (fresh || kalman == nil ? measurements.count : 0) : measurements.count
        var k: ConstantVelocityKalman
        if c.update != .snapshot, var existing = kalman {
            let dt = g - (lastTickTime ?? g)
            existing.predict(dt: dt)
            if g - lastHeardTime > c.intervalSeconds {
                existing.dampVelocity(by: pow(0.5, dt / c.velocityHalfLifeSeconds))
            }
            if heard > 0 {
                switch c.update {
                case .rssi:
                    existing.update(rssi: measurements, solver: context.solver, gate: c.gate)
                case .trilateration, .snapshot:
                    if heard >= 3, let fix = context.trilaterator.locate(measurements) {
                        existing.update(position: [fix.x, fix.y], covariance: fix.covariance)
                    }
                }
            }
            k = existing
        } else if c.update == .snapshot, heard == 0, var existing = kalman {
            existing.predict(dt: g - (lastTickTime ?? g))
            k = existing
        } else {
            k = snapshot(measurements, context: context)
        }
        k.capSpeed(c.maximumSpeed)
        if c.truncateToBounds { k.truncate(to: context.bounds) } else { k.clampPosition(to: context.bounds) }
        kalman = k
        lastTickTime = g
        if heard > 0 {
            lastHeardTime = g
            lastGood = (k.x[0], k.x[1])
        }
        let position = lastGood ?? (k.x[0], k.x[1])
        let r = AccuracyRadius.radius68(k.P) * c.radiusScale
        let radius = (r * r + c.radiusFloorMeters * c.radiusFloorMeters).squareRoot()
        gridIndex += 1
        let moving = c.reportsMotion && heard > 0
        return LocationFix(t: g, target: target, x: position.x, y: position.y,
                           floor: floorEstimator.floor, horizontalAccuracy: radius,
                           speed: moving ? k.speed : nil,
                           course: moving && k.speed > 0.1 ? k.courseDegrees : nil,
                           lastKnown: heard == 0, anchors: heard)
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
    private mutating func collect(at g: Double, context: EngineContext) -> [RSSIMeasurement] {
        let c = context.configuration
        let table = context.anchors
        let snapshot = c.update == .snapshot
        var out: [RSSIMeasurement] = []
        out.reserveCapacity(pending.count)
        var votes: [(floor: Int, rssiDBm: Double)] = []
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
            let model = table.models[a]
            // The model's sigma (the calibration residual) holds the packet jitter j once; averaging n packets
            // keeps only j²/n of it: σ² = σ_model² − j² (1 − 1/n), never below j².
            let s2 = model.shadowingSigmaDB * model.shadowingSigmaDB, j2 = c.jitterSigmaDB * c.jitterSigmaDB
            let sigma = c.sigmaScale * max(s2 - j2 * (1 - 1 / Double(count)), j2).squareRoot()
            let anchor = table.anchors[a]
            out.append(RSSIMeasurement(anchorX: anchor.x, anchorY: anchor.y,
                                       heightDifferenceMeters: table.heights[a] - context.targetHeightMeters,
                                       model: model, rssiDBm: value, sigmaDB: sigma))
            votes.append((anchor.floor, value))
        }
        pending.removeAll(keepingCapacity: true)
        floorEstimator.update(votes)
        return out
    }
}
