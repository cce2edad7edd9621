/// Everything tunable in the positioning engine, with the documented defaults (`docs/positioning.md`).
public struct EngineConfiguration: Sendable, Hashable {
    /// How the Kalman filter is updated each tick.
    public enum UpdateMethod: String, Sendable, Hashable, CaseIterable {
        /// Iterated EKF update directly on each anchor's filtered RSSI.
        case rssi
        /// A trilateration fix per tick (3 or more anchors) fed to the filter as a position measurement; ticks
        /// with fewer anchors use the direct RSSI update (the default: shorter error tails, see the docs).
        case trilateration
        /// No dynamics: each tick a fresh trilateration of every anchor's window median (static devices).
        case snapshot
    }

    /// Which RSSI value per anchor a tick uses.
    public enum RSSISource: String, Sendable, Hashable, CaseIterable {
        /// The mean of the samples accepted since the previous tick (no sample is used twice).
        case tickMean
        /// The median of the anchor's causal window (overlapping between ticks).
        case windowMedian
    }

    /// Seconds between fixes on each target's grid (the output grid). Between filter updates a fix is the
    /// filter's state predicted to the grid time with the constant-velocity model.
    public var intervalSeconds: Double = 1
    /// Seconds between filter updates (each fuses the samples accepted since the previous update); a grid
    /// point at least this long after the previous update triggers the next one. Snapshots update every tick.
    public var updateIntervalSeconds: Double = 1
    /// Whether an update is applied at the mean time of the samples it fuses (else at the grid time): a mean of
    /// the packets of the last second describes where the target was about half a second ago.
    public var updatesAtSampleTime: Bool = false
    /// Kalman update method.
    public var update: UpdateMethod = .trilateration
    /// Per-anchor RSSI value per tick.
    public var rssiSource: RSSISource = .tickMean
    /// Acceleration spectral density of the (first, quiet) constant-velocity model, m²/s³.
    public var accelerationNoise: Double = 0.003
    /// Acceleration noise of a second, manoeuvre model (interacting multiple models); nil for one model.
    public var manoeuvreAccelerationNoise: Double? = 0.5
    /// Probability per second of switching between the models.
    public var modelSwitchRatePerSecond: Double = 0.1
    /// Standard deviation of the initial velocity, m/s.
    public var initialVelocitySigma: Double = 0.7
    /// Speeds are capped here, m/s (brisk walking).
    public var maximumSpeed: Double = 2.0
    /// Velocity is halved for every this many seconds without a measurement.
    public var velocityHalfLifeSeconds: Double = 2
    /// Whether fixes report speed and course.
    public var reportsMotion: Bool = true
    /// Multiplier on each anchor's shadowing sigma for one tick's measurement.
    public var sigmaScale: Double = 1
    /// Packet-to-packet jitter at a fixed spot, dB: the part of the model's sigma that averaging n packets
    /// divides by n (the rest, shadowing, is a property of the place and does not average out).
    public var jitterSigmaDB: Double = 3
    /// Per-measurement innovation gate on νᵢ²/Sᵢ (chi-square, 1 degree of freedom).
    public var gate: Double = 10.83
    /// Snapshot fixes (the first fix of a target, every fix in `.snapshot` mode) from this many anchors or fewer
    /// use the grid posterior mean instead of the Gauss-Newton optimum.
    public var gridPosteriorMaxAnchors: Int = 2
    /// Prior sigma of an RSSI offset common to all anchors of one fix (device gain, orientation, body), dB; nil:
    /// none. Used by the grid posterior.
    public var commonOffsetSigmaDB: Double?
    /// Prior sigma of each component of a body-shadow term `a cos φ + b sin φ` per fix, dB (a carried device is
    /// louder toward the anchors its carrier faces; φ the bearing to the anchor), from the survey
    /// (`SurveyCalibration.Outcome.bodyShadow`), or `UncalibratedPrior.bodyShadowSigmaDB` in `stationary` when no
    /// survey measured it; nil: none. The grid posterior integrates the term out, and its variance leaves each
    /// measurement's sigma (the calibration's residual held it).
    public var bodyShadowSigmaDB: Double?
    /// Whether the engine applies `bodyShadowSigmaDB`: in the grid posterior of static scans, where the
    /// carrier's heading is fixed for the scan; a walker's heading changes and the trilateration has no term.
    public var usesBodyShadow: Bool = false
    /// Within this distance of an anchor the path-loss model is flat (`RSSIMeasurement.nearFieldMeters`),
    /// metres: the model's reference distance d₀ = 1 m, as in the calibration (`PathLossCalibrator`).
    public var nearFieldMeters: Double = 1
    /// Whether the grid posterior reports its spatial median (the estimate with the least expected distance
    /// error) instead of its mean.
    public var gridSpatialMedian: Bool = false
    /// Cell size of the grid posterior, metres.
    public var gridCellMeters: Double = 0.25
    /// Whether the estimate is kept in the venue bounds by truncating its Gaussian (else by clamping the mean).
    public var truncateToBounds: Bool = true
    /// Whether the RSSI update also starts from the anchors' weighted centroid (escaping local minima).
    public var multiStart: Bool = true
    /// Anchors a tick needs for `.trilateration` to fuse a fix (fewer: the direct RSSI update).
    public var trilaterationMinimumAnchors: Int = 3
    /// Factor on the venue prior's variance for fixes fused into a running filter.
    public var trackingPriorWeakening: Double = 100
    /// Per-target covariance matching of the fused fixes: smoothing weight (0 = off).
    public var fixNoiseAdaptation: Double = 0.2
    /// Whether a fused fix's covariance is scaled by its a posteriori variance factor (the fit's reduced χ²,
    /// when above 1).
    public var scalesFixByResidual: Bool = true
    /// Degrees of freedom of a Student-t loss for the solver and the grid posterior; nil: Huber's loss.
    public var studentDegreesOfFreedom: Double?
    /// Huber threshold of the solver, in sigmas.
    public var huberThreshold: Double = 2
    /// Hampel window, seconds.
    public var filterWindowSeconds: Double = 3
    /// Hampel threshold, robust sigmas.
    public var filterThreshold: Double = 3
    /// Floor on the Hampel sigma, dB (about the packet jitter).
    public var filterSigmaFloorDB: Double = 3
    /// Samples held per anchor and target.
    public var filterCapacity: Int = 16
    /// Fixes keep coming (last known) this long after a target's last observation, seconds.
    public var holdoverSeconds: Double = 30
    /// How long the room of a target forgotten after its holdover is remembered, seconds (0: not at all): a target
    /// heard again within it resumes in that room, under the rooms' hysteresis, instead of starting afresh from its
    /// first vague fix. An hour covers the quiet spells of an idle phone (`PresenceRule`'s sources: up to 20 min).
    public var roomMemorySeconds: Double = 3600
    /// Multiplier k on the filter's part of the 68% radius (model error the filter does not see: shadowing
    /// correlated in space and time). The radius is that of `k² P + M`: the filter's covariance P, and the anchors'
    /// stated model errors M (`ModelErrorPropagation`) unscaled, since M is model error already counted.
    public var radiusScale: Double = 1.3
    /// Added in quadrature to the radius, metres.
    public var radiusFloorMeters: Double = 0.5
    /// Whether a moving target keeps to paths through the venue's openings: with rooms in the venue, a particle
    /// filter whose particles cross walls only through openings (`WallParticleFilter`, `WallMap`), weighed by the
    /// Kalman filter's position each tick, gives each update's fix position and covariance (fixes predicted between
    /// updates, on an output grid finer than `updateIntervalSeconds`, stay the Kalman filter's). No effect without
    /// rooms, or for static scans.
    public var usesWalls: Bool = false
    /// Loss per wall in the measurement model, dB: with rooms in the venue, the RSSI expected from an anchor at a
    /// position is the path-loss model's less this for every wall (`WallMap`: room edges away from openings) the
    /// straight line from the anchor to the position crosses. nil, the default, takes the venue's fitted loss
    /// (`Venue.wallLossDB`), which only a survey fit with walls writes; without one, and at 0, the model knows no
    /// walls. The count is constant between walls, so it adds no gradient: the solvers move by distance and the
    /// count follows their estimate at each step.
    public var wallLossDB: Double?
    /// Particles per target for `usesWalls`.
    public var wallParticles: Int = 300
    /// Factor on the log-likelihood of the filter's position for the particles, in (0, 1]: the filter's posterior
    /// is correlated from tick to tick, so counting each tick in full would make the cloud too sure.
    public var wallLikelihoodTemper: Double = 0.2
    /// Which of the venue's radius calibrations (`Venue.radius`) applies: the target model this configuration is.
    public var radiusMode: RadiusCalibration.Mode = .moving
    /// Whether the venue's radius calibration for `radiusMode`, when it has one, scales each fix's radius
    /// (after `radiusScale` and `radiusFloorMeters`; the calibration was measured on radii made that way).
    public var usesRadiusCalibration: Bool = true
    /// Height of the located device above its floor, metres; nil: 0 when every anchor has z = 0, else 1.2.
    public var targetHeightMeters: Double?
    /// Each anchor's place-dependent bias learned from a survey (`SurveyCalibration.Outcome.residualField`);
    /// nil: the plain log-distance model.
    public var residualField: ResidualField?
    /// Whether the engine applies `residualField` when one is set: yes for moving targets, no for static scans
    /// (held out, it helped the walked and robot tracks and hurt the phone scans, `docs/positioning.md`).
    public var usesResidualField: Bool = true

    /// Whether each fix's radius carries the position error its anchors' model errors cause
    /// (`ModelErrorPropagation`): the prior of an uncalibrated anchor (`UncalibratedPrior`), a survey's standard
    /// errors, or what self-calibration learned. Off: the radius of the filter alone, as if every model were right.
    public var usesModelUncertainty: Bool = true
    /// Whether the shared part of that uncertainty (the site's level and exponent, when nobody surveyed) follows
    /// what the residuals at the engine's own fixes say of it (`SiteEvidence`); off: the prior, whatever the
    /// fixes say.
    public var usesSiteEvidence: Bool = true
    /// Learning the anchors' models from ordinary traffic (`SelfCalibration`); nil: off.
    public var selfCalibration: SelfCalibration.Settings?

    /// The defaults: a walking target.
    /// When a target counts as in one of the venue's rooms (`RoomTracker`).
    public var roomHysteresis = RoomHysteresis()
    /// How far behind its fix a target's room is decided, seconds (0: at the fix, causal): the room, and with it the
    /// history's room changes and Home Assistant's room sensor, take the position of this long ago smoothed with
    /// the fixes since (`FixedLagSmoother`), while the fix's own position stays causal. 3 s: issue 42's "about 3 s",
    /// measured on the visible sets and the household day (docs/positioning.md, "Rooms").
    public var roomLagSeconds: Double = 3

    public init() {}

    /// Defaults for a moving target (walkers, robots).
    public static var moving: EngineConfiguration { EngineConfiguration() }

    /// Defaults for a device that stays put (fingerprint scans, fixed gateways): every fix is the grid
    /// posterior of the anchors' window medians, no motion model.
    public static var stationary: EngineConfiguration {
        var c = EngineConfiguration()
        c.update = .snapshot
        c.gridPosteriorMaxAnchors = .max
        c.gridSpatialMedian = true
        c.accelerationNoise = 0.001
        c.manoeuvreAccelerationNoise = nil
        c.radiusScale = 1.15
        c.radiusMode = .static
        c.initialVelocitySigma = 0.05
        c.reportsMotion = false
        c.usesResidualField = false
        c.usesBodyShadow = true
        c.bodyShadowSigmaDB = UncalibratedPrior.bodyShadowSigmaDB
        return c
    }
}
