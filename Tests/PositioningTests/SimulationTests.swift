import BlueDotCore
import Formats
import Foundation
import JSON
import Testing
@testable import Positioning

@Suite struct SimulationTests {
    let venue = Venue(name: "square", model: PathLossModel(measuredPowerDBm: -59, pathLossExponent: 2.2,
                                                           shadowingSigmaDB: 4),
                      anchors: [Anchor(id: "a", x: 0, y: 0, z: 2), Anchor(id: "b", x: 10, y: 0, z: 2,
                                                                        measuredPowerDBm: -65, pathLossExponent: 1.8),
                                Anchor(id: "c", x: 0, y: 10, z: 2)])
    let walk = Track(target: "tag", waypoints: [.init(t: 100, x: 1, y: 1, z: 1.2), .init(t: 130, x: 9, y: 9, z: 1.2)])

    @Test func generatorsAreReproducibleAndDistinctBySeed() {
        var a = Xoshiro256StarStar(seed: 42)
        var b = Xoshiro256StarStar(seed: 42)
        var c = Xoshiro256StarStar(seed: 43)
        let sa = (0..<8).map { _ in a.next() }
        #expect(sa == (0..<8).map { _ in b.next() })
        #expect(sa != (0..<8).map { _ in c.next() })
        // SplitMix64 reference value (Vigna's splitmix64.c, seed 0): first output 0xe220a8397b1dcdaf.
        var s = SplitMix64(seed: 0)
        #expect(s.next() == 0xE220_A839_7B1D_CDAF)
    }

    @Test func trackInterpolatesAndHolds() {
        let track = Track(target: "t", waypoints: [.init(t: 2, x: 4, y: 0), .init(t: 0, x: 0, y: 0, z: 1),
                                                   .init(t: 3, x: 4, y: 3)])
        #expect(track.position(at: 1) == .init(t: 1, x: 2, y: 0, z: 1))
        #expect(track.position(at: 2.5) == .init(t: 2.5, x: 4, y: 1.5, z: nil))
        #expect(track.position(at: -5) == .init(t: -5, x: 0, y: 0, z: 1))
        #expect(track.position(at: 9) == .init(t: 9, x: 4, y: 3, z: nil))
    }

    @Test func sameSeedSameRunOtherSeedOtherRun() {
        let sim = Simulator(venue: venue, configuration: .init(rateHz: 4, jitterSeconds: 0.01))
        var r1 = Xoshiro256StarStar(seed: 9)
        var r2 = Xoshiro256StarStar(seed: 9)
        var r3 = Xoshiro256StarStar(seed: 10)
        let p1 = sim.simulate(tracks: [walk], using: &r1)
        #expect(p1 == sim.simulate(tracks: [walk], using: &r2))
        #expect(p1 != sim.simulate(tracks: [walk], using: &r3))
        // 3 links x 4 Hz x 30 s, give or take one packet per link at the ends.
        #expect((357...363).contains(p1.count))
        #expect(zip(p1, p1.dropFirst()).allSatisfy { $0.observation.t <= $1.observation.t })
        #expect(p1.allSatisfy { (100...130).contains($0.observation.t) })
        // Truth is the interpolated position at the packet time.
        let first = p1[0]
        #expect(abs(first.truth.x - (1 + 8 * (first.observation.t - 100) / 30)) < 1e-9)
    }

    @Test func rssiStatisticsMatchTheModel() {
        // A target parked 5 m (3-D) from anchor b: 3-4-0 horizontal offset at equal heights.
        let parked = Track(target: "tag", waypoints: [.init(t: 0, x: 7, y: 4, z: 2), .init(t: 2000, x: 7, y: 4, z: 2)])
        let sim = Simulator(venue: venue, configuration: .init(rateHz: 10, arrivals: .poisson, shadowingSigmaDB: 6,
                                                               sensitivityDBm: nil))
        var rng = Xoshiro256StarStar(seed: 2024)
        let rssi = sim.simulate(tracks: [parked], using: &rng).filter { $0.observation.anchor == "b" }
            .map(\.observation.rssiDBm)
        let expected = -65 - 10 * 1.8 * log10(5.0)
        let mean = rssi.reduce(0, +) / Double(rssi.count)
        let sd = (rssi.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(rssi.count - 1)).squareRoot()
        // Poisson count: 20000 expected, sd 141; 5 sd bounds.
        #expect(abs(rssi.count - 20000) < 710)
        #expect(abs(mean - expected) < 0.3, "mean \(mean) vs \(expected) dBm")
        #expect(abs(sd - 6) < 0.6, "sigma \(sd) dB")
    }

    @Test func anchorSigmaIsUsedWhenNoneIsGiven() {
        var v = venue
        v.anchors[0].shadowingSigmaDB = 1
        let parked = Track(target: "tag", waypoints: [.init(t: 0, x: 3, y: 4, z: 2), .init(t: 1000, x: 3, y: 4, z: 2)])
        var rng = Xoshiro256StarStar(seed: 5)
        let a = Simulator(venue: v, configuration: .init(rateHz: 10, sensitivityDBm: nil))
            .simulate(tracks: [parked], using: &rng).filter { $0.observation.anchor == "a" }
        let residuals = a.map { $0.observation.rssiDBm - $0.expectedRSSIDBm }
        let sd = (residuals.reduce(0) { $0 + $1 * $1 } / Double(residuals.count)).squareRoot()
        #expect(abs(sd - 1) < 0.1)
        #expect(abs(a[0].expectedRSSIDBm - (-59 - 22 * log10(5.0))) < 1e-9)
    }

    @Test func sensitivityFloorAndQuantisation() {
        let far = Track(target: "tag", waypoints: [.init(t: 0, x: 0, y: 300, z: 2), .init(t: 60, x: 0, y: 300, z: 2)])
        var rng = Xoshiro256StarStar(seed: 1)
        let sim = Simulator(venue: venue, configuration: .init(rateHz: 5, shadowingSigmaDB: 2, sensitivityDBm: -100,
                                                               rssiDecimals: 0))
        // At ~290-300 m the model gives about -113 dBm (a, c) and -109 dBm (b): 2 dB noise never reaches -100.
        #expect(sim.simulate(tracks: [far], using: &rng).isEmpty)
        let packets = sim.simulate(tracks: [walk], using: &rng)
        #expect(!packets.isEmpty && packets.allSatisfy { $0.observation.rssiDBm == $0.observation.rssiDBm.rounded() })
        #expect(packets.allSatisfy { $0.observation.rssiDBm >= -100 })
    }

    @Test func configurationProblems() {
        #expect(SimulationConfiguration(rateHz: 0).problem == "rate must be a positive number of packets per second")
        #expect(SimulationConfiguration(rateHz: 10, jitterSeconds: 0.1).problem
            == "jitter must be at least 0 s and below 1/rate (0.1 s)")
        #expect(SimulationConfiguration(shadowingSigmaDB: -1).problem == "sigma must be 0 dB or more")
        #expect(SimulationConfiguration().problem == nil)
    }

    @Test func simulatedStreamReadsBackThroughTheReader() throws {
        var rng = Xoshiro256StarStar(seed: 3)
        let packets = Simulator(venue: venue, configuration: .init(rateHz: 3, jitterSeconds: 0.2))
            .simulate(tracks: [walk], using: &rng)
        let text = packets.map { ObservationWriter.line($0.observation, truth: $0.truth) }.joined(separator: "\n")
        var reader = ObservationReader(source: MemoryChunkSource(Array(text.utf8)), name: "sim",
                                       options: .init(strict: true, knownAnchors: ["a", "b", "c"]))
        let lines = try reader.readAll()
        #expect(lines.count == packets.count)
        for (line, packet) in zip(lines, packets) {
            #expect(abs(line.observation.t - packet.observation.t) <= 0.0005 + 1e-9)
            #expect(abs(line.observation.rssiDBm - packet.observation.rssiDBm) <= 0.005 + 1e-9)
            #expect(abs(line.truth!.x - packet.truth.x) <= 0.0005 + 1e-9)
        }
    }
}
