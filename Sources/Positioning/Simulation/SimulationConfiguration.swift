/// How the simulator generates packets and noise.
public struct SimulationConfiguration: Sendable, Hashable {
    /// How packet times are spaced on each anchor-target link.
    public enum Arrivals: String, Sendable, Hashable, CaseIterable {
        /// Every 1/rate seconds from a random phase, each packet delayed by a uniform draw in [0, jitter).
        case regular
        /// A Poisson process: exponential gaps with mean 1/rate (jitter is not applied).
        case poisson
    }

    /// Packets per second on each anchor-target link.
    public var rateHz: Double
    /// Regular or Poisson packet times.
    public var arrivals: Arrivals
    /// Standard deviation of the Gaussian shadowing added to each packet, dB; nil uses each anchor's model sigma.
    public var shadowingSigmaDB: Double?
    /// Regular arrivals only: each packet is late by a uniform draw in [0, jitter) seconds, like BLE's advDelay
    /// (Core Spec 5.4, Vol 6, Part B, §4.4.2.2.1). Must be below 1/rate so that a link's packets stay in order.
    public var jitterSeconds: Double
    /// Packets weaker than this (dBm) are not heard; nil hears everything.
    public var sensitivityDBm: Double?
    /// Height of the target (metres) where the track gives none.
    public var defaultHeightMeters: Double
    /// Round RSSI to this many decimals, as receivers report it (0: whole dBm); nil keeps full precision.
    public var rssiDecimals: Int?
    /// Loss per wall between anchor and target, dB, where the venue has rooms (`WallMap`: room edges away from
    /// openings; a wall two rooms share counts once); 0 ignores walls.
    public var wallLossDB: Double = 0

    /// Creates a configuration.
    public init(rateHz: Double = 5, arrivals: Arrivals = .regular, shadowingSigmaDB: Double? = nil,
                jitterSeconds: Double = 0, sensitivityDBm: Double? = -100, defaultHeightMeters: Double = 1.2,
                rssiDecimals: Int? = nil) {
        self.rateHz = rateHz
        self.arrivals = arrivals
        self.shadowingSigmaDB = shadowingSigmaDB
        self.jitterSeconds = jitterSeconds
        self.sensitivityDBm = sensitivityDBm
        self.defaultHeightMeters = defaultHeightMeters
        self.rssiDecimals = rssiDecimals
    }

    /// Why the configuration cannot run, or nil when it can.
    public var problem: String? {
        guard rateHz.isFinite, rateHz > 0 else { return "rate must be a positive number of packets per second" }
        if let sigma = shadowingSigmaDB, !(sigma.isFinite && sigma >= 0) { return "sigma must be 0 dB or more" }
        guard jitterSeconds.isFinite, jitterSeconds >= 0, jitterSeconds < 1 / rateHz else {
            return "jitter must be at least 0 s and below 1/rate (\(1 / rateHz) s)"
        }
        if let s = sensitivityDBm, !s.isFinite { return "sensitivity must be a finite number of dBm" }
        guard defaultHeightMeters.isFinite else { return "height must be a finite number of metres" }
        if let d = rssiDecimals, !(0...6).contains(d) { return "RSSI decimals must be 0 to 6" }
        guard wallLossDB.isFinite, wallLossDB >= 0 else { return "wall loss must be 0 dB or more" }
        return nil
    }
}
