import BeaconLocation
import BlueDotCore
import Foundation
import HCI
import LocationDisplay
import Positioning

/// `bluedot-bench latency`: how long an advertising report takes from entering the beacon source to its
/// location reaching a listener.
///
/// A seeded walk past 10 iBeacons (Positioning's `Simulator`, 10 Hz per beacon, 2 dB shadowing) becomes LE
/// Advertising Report events, handed to a `BeaconLocationDataSource` one at a time through an in-memory
/// transport (recording input: the scanner's `SightingDecoder`, then the engine, then `didUpdate`). The
/// transport notes the instant each packet enters; a listener task notes when each location arrives. A fix at
/// grid time g is released by the first report stamped after g, so its latency is measured from that report.
/// `--pace S` feeds packets at S times real time (default 0: as fast as the source takes them).
enum LatencyBenchmark {
    /// HCI packets handed out one per pull, noting when each enters and which time it is stamped with.
    final class FeedTransport: HCITransport {
        let packets: [HCIPacket]
        let times: [Double]
        let paceFactor: Double
        let entries: LockedValue<[ContinuousClock.Instant?]>
        let current = LockedValue(0)
        var name: String { "bench:feed" }

        init(packets: [HCIPacket], times: [Double], paceFactor: Double) {
            (self.packets, self.times, self.paceFactor) = (packets, times, paceFactor)
            entries = LockedValue(Array(repeating: nil, count: packets.count))
        }

        func open() async throws -> AsyncThrowingStream<HCIPacket, any Error> {
            let next = LockedValue(0)
            let start = ContinuousClock.now
            return AsyncThrowingStream { [self] in
                let i = next.withLock { n in
                    defer { n += 1 }
                    return n
                }
                guard i < packets.count else { return nil }
                if paceFactor > 0 {
                    try await Task.sleep(until: start + .seconds((times[i] - times[0]) / paceFactor))
                }
                current.withLock { $0 = i }
                entries.withLock { $0[i] = ContinuousClock.now }
                return packets[i]
            }
        }

        func send(_ packet: HCIPacket) async throws {}
        func close() async {}
    }

    /// Stamps each packet with its simulated time: the feed's current packet.
    struct FeedClock: BlueDotClock {
        let feed: FeedTransport
        func now() -> Double { feed.times[feed.current.withLock { $0 }] }
        func sleep(until deadline: Double) async throws { try Task.checkCancellation() }
    }

    static func option(_ name: String, in arguments: [String], default value: Double) -> Double {
        guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return value }
        return Double(arguments[i + 1]) ?? value
    }

    static func run(_ arguments: [String]) async {
        let seconds = option("--seconds", in: arguments, default: 600)
        let pace = option("--pace", in: arguments, default: 0)
        let seed = UInt64(option("--seed", in: arguments, default: 1))
        let (venue, observations) = walk(seconds: seconds, seed: seed)
        let feed = FeedTransport(packets: observations.map(event), times: observations.map(\.t), paceFactor: pace)
        let source = BeaconLocationDataSource(transport: feed, venue: venue, input: .recording,
                                              clock: FeedClock(feed: feed))
        let locations = source.locations
        let arrivals = Task {
            var seen: [(t: Double, at: ContinuousClock.Instant)] = []
            for await location in locations {
                seen.append((location.timestamp, ContinuousClock.now))
                if location.timestamp >= feed.times[feed.times.count - 1] { break }
            }
            return seen
        }
        let started = ContinuousClock.now
        do {
            try await source.start()
        } catch {
            print("latency: start failed: \(error)")
            return
        }
        let seen = await arrivals.value
        let elapsed = ContinuousClock.now - started
        await source.stop()
        let entries = feed.entries.withLock { $0 }
        var latencies: [Double] = []
        for (t, at) in seen {
            // The releasing report: the first one stamped after the grid time.
            guard let i = feed.times.firstIndex(where: { $0 > t }), let entered = entries[i] else { continue }
            latencies.append(Double((at - entered).components.attoseconds) * 1e-12
                             + Double((at - entered).components.seconds) * 1e6)
        }
        latencies.sort()
        let statistics = source.statistics
        print("latency: \(observations.count) reports, \(latencies.count) fixes timed, seed \(seed), pace "
              + (pace > 0 ? "\(pace)x real time" : "as fast as taken") + ", wall \(elapsed)")
        for (label, p) in [("p50", 50.0), ("p90", 90.0), ("p99", 99.0), ("max", 100.0)] {
            let value = Percentile.of(sorted: latencies, p).map { String(format: "%.1f", $0) } ?? "n/a"
            print("  \(label) \(value) us")
        }
        print("  source: \(statistics.sightings) sightings, \(statistics.locations) locations")
    }

    /// A walk around a 20 m x 12 m hall past 10 beacons, as observations in time order.
    static func walk(seconds: Double, seed: UInt64) -> (Venue, [Observation]) {
        let places: [(Double, Double)] = [(0, 0), (10, 0), (20, 0), (20, 12), (10, 12), (0, 12), (0, 6), (20, 6),
                                          (7, 6), (13, 6)]
        let venue = Venue(
            name: "latency hall", model: PathLossModel(measuredPowerDBm: -59, pathLossExponent: 2),
            anchors: places.enumerated().map { Anchor(id: beaconID($0.offset + 1), x: $0.element.0, y: $0.element.1,
                                                      z: 2.5) },
            bounds: .init(minX: 0, minY: 0, maxX: 20, maxY: 12))
        // Laps of a 52 m loop at 1.3 m/s.
        let corners: [(Double, Double)] = [(2, 2), (18, 2), (18, 10), (2, 10)]
        var waypoints: [Track.Waypoint] = []
        var t = 0.0
        var k = 0
        while t <= seconds {
            let a = corners[k % 4], b = corners[(k + 1) % 4]
            waypoints.append(.init(t: t, x: a.0, y: a.1))
            t += hypot(b.0 - a.0, b.1 - a.1) / 1.3
            k += 1
        }
        var rng = SplitMix64(seed: seed)
        let simulator = Simulator(venue: venue, configuration: SimulationConfiguration(
            rateHz: 10, arrivals: .poisson, shadowingSigmaDB: 2, rssiDecimals: 0))
        let packets = simulator.simulate(tracks: [Track(target: "self", waypoints: waypoints)], using: &rng)
        return (venue, packets.map(\.observation))
    }

    static func beaconID(_ minor: Int) -> String {
        "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:\(minor)"
    }

    /// The LE Advertising Report event (Core Spec 5.4, Vol 4, Part E, §7.7.65.2) of one iBeacon observation.
    static func event(for observation: Observation) -> HCIPacket {
        let minor = UInt16(observation.anchor.split(separator: ":").last!)!
        var data = ByteWriter()
        data.append([0x02, 0x01, 0x06, 0x1A, 0xFF])            // Flags; Manufacturer Specific Data, 26 bytes
        data.u16(IBeacon.appleCompanyID)
        data.append([IBeacon.beaconType, 0x15])
        data.append([0xF7, 0x82, 0x6D, 0xA6, 0x4F, 0xA2, 0x4E, 0x98, 0x80, 0x24, 0xBC, 0x5B, 0x71, 0xE0, 0x89, 0x3E])
        data.u16BigEndian(1)
        data.u16BigEndian(minor)
        data.i8(-59)
        let report = AdvertisingReport(
            eventType: .legacy(.advNonconnInd), addressType: .random,
            address: BDAddress(rawValue: 0xC000_0000_0000 | UInt64(minor)),
            rssiDBm: Int8(observation.rssiDBm.rounded()), data: data.bytes[...])
        return HCIEvent.leMeta(.advertisingReport(LEAdvertisingReportEvent(reports: [report]))).packet
    }
}
