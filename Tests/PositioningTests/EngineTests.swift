import BlueDotCore
import Formats
import Foundation
import Testing
@testable import Positioning

/// A simulated walk: a target going round a 10 m x 6 m rectangle at 1 m/s in the test venue, each anchor
/// sending 5 packets/s with Gaussian shadowing and 5% outliers 20 dB low.
func simulatedWalk(target: String = "tag", seconds: Double, start: Double = 1000, sigmaDB: Double = 3,
                   venue: Venue, seed: UInt64) -> (observations: [Observation], truth: [TruthPoint]) {
    var rng = SeededGenerator(seed: seed)
    func position(_ s: Double) -> (Double, Double) {
        let perimeter = 32.0
        var u = s.truncatingRemainder(dividingBy: perimeter)
        if u < 10 { return (5 + u, 7) }
        u -= 10
        if u < 6 { return (15, 7 + u) }
        u -= 6
        if u < 10 { return (15 - u, 13) }
        u -= 10
        return (5, 13 - u)
    }
    var observations: [Observation] = []
    var truth: [TruthPoint] = []
    var t = start
    var k = 0
    let dt = 0.2 / Double(venue.anchors.count)
    while t < start + seconds {
        let (x, y) = position(t - start)
        let a = venue.anchors[k % venue.anchors.count]
        let m = a.model(default: venue.model)
        let d = ((x - a.x) * (x - a.x) + (y - a.y) * (y - a.y) + (a.z - 1.2) * (a.z - 1.2)).squareRoot()
        var rssi = m.rssiDBm(atDistanceMeters: d) + sigmaDB * rng.gaussian()
        if Double.random(in: 0..<1, using: &rng) < 0.05 { rssi -= 20 }
        let time = (t * 1000).rounded() / 1000
        observations.append(Observation(t: time, anchor: a.id, target: target, rssiDBm: rssi))
        truth.append(TruthPoint(t: time, target: target, x: x, y: y, z: 1.2))
        t += dt
        k += 1
    }
    return (observations, truth)
}

func replay(_ observations: [Observation], venue: Venue, configuration: EngineConfiguration = .moving)
    -> [Location] {
    var engine = PositioningEngine(venue: venue, configuration: configuration)
    var fixes: [Location] = []
    for o in observations { engine.ingest(o, into: &fixes) }
    engine.finish(into: &fixes)
    return fixes
}

@Suite struct EngineTests {
    static var configuration: EngineConfiguration {
        var c = EngineConfiguration.moving
        c.targetHeightMeters = 1.2
        return c
    }

    @Test func gridStartsAtFirstObservationAndHoldsOver() {
        let venue = testVenue()
        let walk = simulatedWalk(seconds: 10, start: 500.25, venue: venue, seed: 50)
        let fixes = replay(walk.observations, venue: venue, configuration: Self.configuration)
        let c = Self.configuration
        let last = walk.observations.last!.t
        #expect(fixes.first?.timestamp == 500.25)
        for (k, fix) in fixes.enumerated() { #expect(abs(fix.timestamp - (500.25 + Double(k) * c.intervalSeconds)) < 1e-9) }
        // Last-known fixes continue through the holdover, with a growing radius.
        #expect(fixes.last!.timestamp <= last + c.holdoverSeconds && fixes.last!.timestamp > last + c.holdoverSeconds - 1)
        let held = fixes.filter(\.lastKnown)
        #expect(held.count >= Int(c.holdoverSeconds) - 1)
        #expect(zip(held, held.dropFirst()).allSatisfy { $0.horizontalAccuracyMeters < $1.horizontalAccuracyMeters })
        #expect(Set(held.map { "\($0.x),\($0.y)" }).count == 1)
    }

    /// A clock driving a silent target: `advance(to:)` releases exactly the grid points an observation at that
    /// time would (the same fixes, byte for byte, as the full replay up to there), last known with a growing
    /// radius once the anchors are quiet; nothing twice, and a packet older than a released grid point is late.
    @Test func advancingTheClockReleasesLastKnownFixes() throws {
        let venue = testVenue()
        let walk = simulatedWalk(seconds: 10, start: 500.25, venue: venue, seed: 51)
        let reference = replay(walk.observations, venue: venue, configuration: Self.configuration)
        var engine = PositioningEngine(venue: venue, configuration: Self.configuration)
        var fixes: [Location] = []
        for o in walk.observations { engine.ingest(o, into: &fixes) }
        let last = walk.observations.last!.t
        // The clock, half a second behind, ticking every second through 20 s of silence.
        for k in 1...20 { engine.advance(to: last + Double(k) - 0.5, into: &fixes) }
        #expect(engine.advance(to: last + 19.5).isEmpty)
        #expect(engine.advance(to: .nan).isEmpty)
        #expect(fixes.map(LocationWriter.line) == reference.prefix(fixes.count).map(LocationWriter.line))
        #expect(fixes.last!.timestamp < last + 19.5 && fixes.last!.timestamp >= last + 18.5)
        let held = fixes.filter(\.lastKnown)
        #expect(held.count >= 17)
        #expect(zip(held, held.dropFirst()).allSatisfy { $0.horizontalAccuracyMeters < $1.horizontalAccuracyMeters })
        // A packet stamped before the last released grid point comes too late for it.
        let stale = Observation(t: fixes.last!.timestamp - 0.1, anchor: venue.anchors[0].id, target: "tag", rssiDBm: -70)
        #expect(engine.ingest(stale).isEmpty)
        #expect(engine.counters.late == 1)
    }

    /// Causality: the fixes up to T are the same whether or not the stream goes on after T.
    @Test func fixesUseOnlyEarlierObservations() {
        let venue = testVenue()
        let walk = simulatedWalk(seconds: 30, venue: venue, seed: 51)
        let full = replay(walk.observations, venue: venue, configuration: Self.configuration)
        for cut in [1003.5, 1010.0, 1021.7] {
            let prefix = replay(walk.observations.filter { $0.t <= cut }, venue: venue,
                                configuration: Self.configuration)
            let a = full.filter { $0.timestamp <= cut }, b = prefix.filter { $0.timestamp <= cut }
            #expect(a == b && !a.isEmpty, "cut at \(cut)")
        }
    }

    /// A 0.25 s output grid over 1 s updates: a fix every 0.25 s; between updates the fix is the state carried
    /// forward by its own velocity (displacement = velocity × Δt within 1 mm; without the bounds' truncation and
    /// the speed cap, which act on each model of the mixture and so move a prediction off that line near walls);
    /// the updates themselves are the fixes of the 1 s grid (to 1 µm); causal under any cut.
    @Test func finerOutputGridPredictsBetweenUpdates() {
        let venue = testVenue()
        let walk = simulatedWalk(seconds: 20, venue: venue, seed: 58)
        var c = Self.configuration
        c.truncateToBounds = false
        c.maximumSpeed = 100
        var fine = c
        fine.intervalSeconds = 0.25
        let coarse = replay(walk.observations, venue: venue, configuration: c)
        let fixes = replay(walk.observations, venue: venue, configuration: fine)
        #expect(fixes.count >= 4 * 20)
        for (k, f) in fixes.enumerated() { #expect(abs(f.timestamp - (fixes[0].timestamp + 0.25 * Double(k))) < 1e-9) }
        for c in coarse.prefix(15) {
            guard let f = fixes.first(where: { abs($0.timestamp - c.timestamp) < 1e-9 }) else { Issue.record("no fix at \(c.timestamp)"); continue }
            #expect(abs(f.x - c.x) < 1e-6 && abs(f.y - c.y) < 1e-6, "t \(c.timestamp)")
        }
        // Between two updates (k = 4m + 1 ... 4m + 3) the track moves by v · Δt from the update's fix.
        for m in 2..<15 {
            let u = fixes[4 * m], p = fixes[4 * m + 2]
            guard let v = u.speedMetersPerSecond, let course = u.courseDegrees else { continue }
            let θ = course * Double.pi / 180
            let (ex, ey) = (u.x + v * sin(θ) * 0.5, u.y + v * cos(θ) * 0.5)
            #expect(abs(p.x - ex) < 1e-3 && abs(p.y - ey) < 1e-3, "fix \(4 * m + 2)")
        }
        for cut in [1004.1, 1012.6] {
            let prefix = replay(walk.observations.filter { $0.t <= cut }, venue: venue, configuration: fine)
            #expect(fixes.filter { $0.timestamp <= cut } == prefix.filter { $0.timestamp <= cut }, "cut at \(cut)")
        }
    }

    @Test func replayIsDeterministic() {
        let venue = testVenue()
        let walk = simulatedWalk(seconds: 20, venue: venue, seed: 52)
        let a = LocationWriter.text(replay(walk.observations, venue: venue))
        let b = LocationWriter.text(replay(walk.observations, venue: venue))
        #expect(a == b && !a.isEmpty)
    }

    /// Targets do not interact: interleaving two walks gives each the fixes it gets alone. Only what the site
    /// shares may join them: the evidence of how far the site's model is off (`SiteEvidence`) is every target's,
    /// so with it the radii differ, and the positions do not.
    @Test func targetsAreIndependent() {
        let venue = testVenue()
        let a = simulatedWalk(target: "a", seconds: 15, start: 1000, venue: venue, seed: 53)
        let b = simulatedWalk(target: "b", seconds: 15, start: 1003.3, venue: venue, seed: 54)
        let mixed = (a.observations + b.observations).enumerated()
            .sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
        var alone = Self.configuration
        alone.usesSiteEvidence = false
        let together = replay(mixed, venue: venue, configuration: alone)
        #expect(together.filter { $0.targetID == "a" } == replay(a.observations, venue: venue, configuration: alone))
        #expect(together.filter { $0.targetID == "b" } == replay(b.observations, venue: venue, configuration: alone))
        let shared = replay(mixed, venue: venue, configuration: Self.configuration)
        #expect(shared.map { [$0.x, $0.y] } == together.map { [$0.x, $0.y] })
        // Output is in time order.
        #expect(zip(together, together.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp })
    }

    @Test func expiredTargetsAreForgotten() {
        let venue = testVenue()
        var engine = PositioningEngine(venue: venue, configuration: Self.configuration)
        var fixes: [Location] = []
        for i in 0..<50 {
            engine.ingest(Observation(t: Double(i) * 100, anchor: "a0", target: "fp-\(i)", rssiDBm: -70), into: &fixes)
        }
        // Only the newest target is alive; each earlier one got its holdover of fixes.
        #expect(engine.liveTargets == 1)
        #expect(Set(fixes.map(\.targetID)).count == 49)
        engine.ingest(Observation(t: 5000, anchor: "nowhere", target: "x", rssiDBm: -70), into: &fixes)
        #expect(engine.counters.unknownAnchors == 1)
        engine.ingest(Observation(t: .nan, anchor: "a0", target: "x", rssiDBm: -70), into: &fixes)
        engine.ingest(Observation(t: 5001, anchor: "a0", target: "x", rssiDBm: .infinity), into: &fixes)
        #expect(engine.counters.invalid == 2)
        #expect(fixes.allSatisfy { $0.x.isFinite && $0.y.isFinite })
    }

    @Test func oneAnchorGivesFiniteFixesWithLargeRadius() {
        let venue = testVenue()
        let observations = (0..<50).map { Observation(t: Double($0) * 0.2, anchor: "a3", target: "t", rssiDBm: -75) }
        let fixes = replay(observations, venue: venue, configuration: Self.configuration)
        #expect(!fixes.isEmpty)
        for fix in fixes {
            #expect(fix.x.isFinite && fix.y.isFinite && fix.horizontalAccuracyMeters.isFinite)
            #expect(fix.horizontalAccuracyMeters > 2)
        }
    }

    @Test func lateObservationsAreDroppedAndCounted() {
        let venue = testVenue()
        var engine = PositioningEngine(venue: venue, configuration: Self.configuration)
        var fixes: [Location] = []
        engine.ingest(Observation(t: 10, anchor: "a0", target: "t", rssiDBm: -70), into: &fixes)
        engine.ingest(Observation(t: 12, anchor: "a1", target: "t", rssiDBm: -70), into: &fixes)
        engine.ingest(Observation(t: 10.5, anchor: "a2", target: "t", rssiDBm: -70), into: &fixes)
        #expect(engine.counters.late == 1)
        #expect(fixes.map(\.timestamp) == [10, 11])
    }

    /// On a simulated walk with a known model: median error under 1.5 m (the 1 s grid alone costs about 0.5 m
    /// at walking speed, and the filter assumes shadowing correlated over a tick), radius coverage 0.55-0.9.
    @Test func simulatedWalkIsAccurateAndHonest() {
        let venue = testVenue()
        let walk = simulatedWalk(seconds: 120, venue: venue, seed: 55)
        // The simulated world's models are the venue's own: known exactly, so no prior on them.
        var configuration = Self.configuration
        configuration.usesModelUncertainty = false
        let fixes = replay(walk.observations, venue: venue, configuration: configuration)
        let report = Evaluator.evaluate(fixes: fixes, truth: walk.truth)
        #expect((report.median ?? .infinity) < 1.5, "median \(report.median ?? .nan)")
        #expect((0.55...0.9).contains(report.coverage68 ?? 0), "coverage \(report.coverage68 ?? .nan)")
        #expect(report.missing == 0)
    }
}

extension EngineTests {
    /// Two floors: the engine reports the floor of the anchors heard loudest, and one loud tick from the
    /// other floor does not flip it.
    @Test func floorFollowsTheAnchorsWithHysteresis() {
        var venue = testVenue(anchorCount: 8)
        for i in 4..<8 { venue.anchors[i].floor = 1 }
        venue.floors = [Venue.Floor(floor: 0, elevationMeters: 0), Venue.Floor(floor: 1, elevationMeters: 3.5)]
        var observations: [Observation] = []
        for k in 0..<100 {
            let t = Double(k) * 0.1
            let upstairsBlip = (30..<40).contains(k)
            let loud = (k % 8) < 4 ? !upstairsBlip : upstairsBlip
            observations.append(Observation(t: t, anchor: "a\(k % 8)", target: "t", rssiDBm: loud ? -60 : -80))
        }
        for k in 100..<200 {
            observations.append(Observation(t: Double(k) * 0.1, anchor: "a\(k % 8)", target: "t",
                                            rssiDBm: (k % 8) < 4 ? -80 : -60))
        }
        let fixes = replay(observations, venue: venue, configuration: Self.configuration).filter { !$0.lastKnown }
        let floors = fixes.map { $0.floor ?? -1 }
        // Ground floor through the one-tick blip (t = 3 s), first floor from 3 ticks after the change at t = 10 s.
        #expect(floors.prefix(10).allSatisfy { $0 == 0 }, "\(floors)")
        #expect(floors[13...].allSatisfy { $0 == 1 }, "\(floors)")
    }
}
