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
        }
        if filters[a]!.add(t: t, rssiDBm: rssiDBm), !pending.contains(a) { pending.append(a) }
        lastObservationTime = max(lastObservationTime, t)
    }

    /// Produces the fix at grid time g from everything added so far (all of it at or before g).
    mutating func tick(at g: Double, context: EngineContext) -> LocationFix {
        let c = context.configuration
        let measurements = collect(at: g, context: context)
        let heard = measurements.count
        var k: ConstantVelocityKalman
        if var existing = kalman {
            let dt = g - (lastTickTime ?? g)
            existing.predict(dt: dt)
            if g - lastHeardTime > c.intervalSeconds {
                existing.dampVelocity(by: pow(0.5, dt / c.velocityHalfLifeSeconds))
            }
            if heard > 0 {
                switch c.update {
                case .rssi:
                    existing.update(rssi: measurements, solver: context.solver, gate: c.gate)
                case .trilateration:
                    if heard >= 3, let fix = context.trilaterator.locate(measurements) {
                        existing.update(position: [fix.x, fix.y], covariance: fix.covariance)
                    }
                }
            }
            k = existing
        } else {
            // First tick: a trilateration fix (with the venue prior, so one or two anchors are fine).
            let fix = context.trilaterator.locate(measurements)
            let prior = context.trilaterator
            k = ConstantVelocityKalman(
                x: fix?.x ?? prior.priorMean[0], y: fix?.y ?? prior.priorMean[1],
                positionCovariance: fix?.covariance ?? Matrix.diagonal(prior.priorVariance),
                velocitySigma: c.initialVelocitySigma, accelerationNoise: c.accelerationNoise)
        }
        k.capSpeed(c.maximumSpeed)
        k.clampPosition(to: context.bounds)
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

    /// This tick's measurement per anchor heard, and the floor vote.
    private mutating func collect(at g: Double, context: EngineContext) -> [RSSIMeasurement] {
        let c = context.configuration
        let table = context.anchors
        var out: [RSSIMeasurement] = []
        out.reserveCapacity(pending.count)
        var votes: [(floor: Int, rssiDBm: Double)] = []
        for a in pending {
            guard let tick = filters[a]?.drainTick() else { continue }
            let value: Double
            switch c.rssiSource {
            case .tickMean: value = tick.meanDBm
            case .windowMedian: value = filters[a]?.windowMedian(now: g)?.medianDBm ?? tick.meanDBm
            }
            let model = table.models[a]
            let s = c.sigmaScale * model.shadowingSigmaDB
            let sigma = (s * s + c.jitterSigmaDB * c.jitterSigmaDB / Double(tick.count)).squareRoot()
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
