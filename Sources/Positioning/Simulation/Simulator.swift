import BlueDotCore
import FoundationEssentials
import Glibc

/// Generates the observations a venue's anchors would log for targets moving along tracks.
///
/// Each (track, anchor) pair is a link with its own packet times (`SimulationConfiguration.Arrivals`). A packet
/// at time t gets RSSI = the anchor's model at the 3-D distance between anchor and interpolated target position,
/// plus Gaussian shadowing N(0, sigma^2) (log-normal shadowing, Rappaport §4.9.2); packets below the sensitivity
/// floor are not heard. Packets come out in time order (ties by link: track order, then anchor order), and all
/// randomness comes from the generator passed in, drawn in that order, so a seed reproduces a run exactly.
public struct Simulator: Sendable {
    /// The venue whose anchors hear (or are heard by) the targets.
    public let venue: Venue
    /// Rates, noise and thresholds.
    public let configuration: SimulationConfiguration

    /// Creates a simulator; the configuration must be valid (`SimulationConfiguration.problem == nil`).
    public init(venue: Venue, configuration: SimulationConfiguration = SimulationConfiguration()) {
        precondition(configuration.problem == nil, configuration.problem ?? "")
        self.venue = venue
        self.configuration = configuration
    }

    /// Runs the tracks from their start to their end, handing each heard packet to `emit` in time order.
    public func run(tracks: [Track], using rng: inout some RandomNumberGenerator,
                    emit: (SimulatedPacket) throws -> Void) rethrows {
        let anchors = venue.anchors
        let models = anchors.map { $0.model(default: venue.model) }
        let period = 1 / configuration.rateHz
        let walls = configuration.wallLossDB > 0 ? WallMap(venue: venue) : nil
        var queue = BinaryHeap<PacketEvent>()  // pending packets, earliest first
        for (ti, track) in tracks.enumerated() {
            for ai in anchors.indices {
                let link = ti * anchors.count + ai
                let nominal = track.startTime + period * RandomDraws.unit(using: &rng)
                queue.push(schedule(link: link, after: track.startTime, nominal: nominal, using: &rng))
            }
        }
        while let event = queue.popFirst() {
            let track = tracks[event.link / anchors.count]
            guard event.t <= track.endTime else { continue }
            let ai = event.link % anchors.count
            let anchor = anchors[ai]
            let p = track.position(at: event.t)
            let z = p.z ?? configuration.defaultHeightMeters
            let d = ((p.x - anchor.x) * (p.x - anchor.x) + (p.y - anchor.y) * (p.y - anchor.y)
                + (z - anchor.z) * (z - anchor.z)).squareRoot()
            var expected = models[ai].rssiDBm(atDistanceMeters: d)
            if let walls {
                expected -= configuration.wallLossDB
                    * Double(walls.wallsCrossed(fromX: anchor.x, fromY: anchor.y, toX: p.x, toY: p.y, floor: anchor.floor))
            }
            let sigma = configuration.shadowingSigmaDB ?? models[ai].shadowingSigmaDB
            var rssi = expected + RandomDraws.normal(standardDeviation: sigma, using: &rng)
            if let decimals = configuration.rssiDecimals {
                let scale = pow(10, Double(decimals))
                rssi = (rssi * scale).rounded() / scale
            }
            queue.push(schedule(link: event.link, after: event.t, nominal: event.nominal + period, using: &rng))
            if let floor = configuration.sensitivityDBm, rssi < floor { continue }
            let observation = Observation(t: event.t, anchor: anchor.id, target: track.target, rssiDBm: rssi)
            let truth = TruthPoint(t: event.t, target: track.target, x: p.x, y: p.y, z: z)
            try emit(SimulatedPacket(observation: observation, truth: truth, expectedRSSIDBm: expected))
        }
    }

    /// All heard packets of a run, in time order.
    public func simulate(tracks: [Track], using rng: inout some RandomNumberGenerator) -> [SimulatedPacket] {
        var packets: [SimulatedPacket] = []
        run(tracks: tracks, using: &rng) { packets.append($0) }
        return packets
    }

    /// The next packet of a link: regular arrivals at `nominal` plus jitter, Poisson arrivals an exponential gap
    /// after `previous`.
    private func schedule(link: Int, after previous: Double, nominal: Double,
                          using rng: inout some RandomNumberGenerator) -> PacketEvent {
        switch configuration.arrivals {
        case .regular:
            let jitter = configuration.jitterSeconds > 0
                ? configuration.jitterSeconds * RandomDraws.unit(using: &rng) : 0
            return PacketEvent(t: nominal + jitter, link: link, nominal: nominal)
        case .poisson:
            let t = previous + RandomDraws.exponential(rate: configuration.rateHz, using: &rng)
            return PacketEvent(t: t, link: link, nominal: t)
        }
    }
}

/// One scheduled packet of the simulation: its time, the link it is on and, for regular arrivals, its unjittered
/// time. Ties in time go to the lower link index, so runs are deterministic.
struct PacketEvent: Comparable {
    var t: Double
    var link: Int
    var nominal: Double

    /// Earlier time first, then the lower link index.
    static func < (a: PacketEvent, b: PacketEvent) -> Bool { a.t < b.t || (a.t == b.t && a.link < b.link) }
}
