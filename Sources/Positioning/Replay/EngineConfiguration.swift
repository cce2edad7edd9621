/// Everything tunable in the positioning engine, with the documented defaults (`docs/positioning.md`).
public struct EngineConfiguration: Sendable, Hashable {
    /// How the Kalman filter is updated each tick.
    public enum UpdateMethod: String, Sendable, Hashable, CaseIterable {
        /// Iterated EKF update directly on each anchor's filtered RSSI (the default).
        case rssi
        /// A trilateration fix per tick (3 or more anchors) fed to the filter as a position measurement.
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

    /// Seconds between fixes on each target's grid.
    public var intervalSeconds: Double = 1
    /// Kalman update method.
    public var update: UpdateMethod = .rssi
    /// Per-anchor RSSI value per tick.
    public var rssiSource: RSSISource = .tickMean
    /// Acceleration spectral density of the constant-velocity model, m²/s³.
    public var accelerationNoise: Double = 0.5
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
    /// Cell size of the grid posterior, metres.
    public var gridCellMeters: Double = 0.25
    /// Whether the estimate is kept in the venue bounds by truncating its Gaussian (else by clamping the mean).
    public var truncateToBounds: Bool = true
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
    /// Multiplier on the filter's 68% radius (model error the filter does not see).
    public var radiusScale: Double = 1.1
    /// Added in quadrature to the radius, metres.
    public var radiusFloorMeters: Double = 0.5
    /// Height of the located device above its floor, metres; nil: 0 when every anchor has z = 0, else 1.2.
    public var targetHeightMeters: Double?

    /// The defaults: a walking target.
    public init() {}

    /// Defaults for a moving target (walkers, robots).
    public static var moving: EngineConfiguration { EngineConfiguration() }

    /// Defaults for a device that stays put (fingerprint scans, fixed gateways): every fix is the grid
    /// posterior of the anchors' window medians, no motion model.
    public static var stationary: EngineConfiguration {
        var c = EngineConfiguration()
        c.update = .snapshot
        c.gridPosteriorMaxAnchors = .max
        c.accelerationNoise = 0.001
        c.initialVelocitySigma = 0.05
        c.reportsMotion = false
        return c
    }
}
