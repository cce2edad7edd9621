import BlueDotCore
import Foundation
import Testing
@testable import Positioning

/// Walls from rooms and openings, the simulator's wall loss, and the wall-bound particles in the engine.
@Suite struct WallTests {
    let office = SimulatedOffice.venue()

    @Test func movesCrossWallsOnlyThroughDoors() throws {
        let walls = try #require(WallMap(venue: office))
        // Office south-1 (x 0-6, y 0-5) to the corridor: through its door (x 2.5-3.5 on y = 5), not beside it.
        #expect(!walls.blocks(fromX: 3, fromY: 4, toX: 3, toY: 6, floor: 0))
        #expect(!walls.blocks(fromX: 2.6, fromY: 4.5, toX: 3.4, toY: 5.5, floor: 0))
        #expect(walls.blocks(fromX: 1, fromY: 4, toX: 1, toY: 6, floor: 0))
        // Between two offices there is no door.
        #expect(walls.blocks(fromX: 5, fromY: 2, toX: 7, toY: 2, floor: 0))
        // Within a room, or along the corridor, nothing is in the way.
        #expect(!walls.blocks(fromX: 1, fromY: 1, toX: 5, toY: 4, floor: 0))
        #expect(!walls.blocks(fromX: 1, fromY: 6, toX: 23, toY: 6.5, floor: 0))
        // Another floor has no walls.
        #expect(!walls.blocks(fromX: 1, fromY: 4, toX: 1, toY: 6, floor: 1))
        #expect(walls.isWalkable(x: 3, y: 2.5, floor: 0) && walls.isWalkable(x: 12, y: 6, floor: 0))
        #expect(!walls.isWalkable(x: 25, y: 6, floor: 0))
        #expect(WallMap(venue: testVenue()) == nil)
    }

    @Test func wallsCrossedCountEachWallOnce() throws {
        let walls = try #require(WallMap(venue: office))
        // From office south-1 straight up to north-1 at x = 1: the south office's wall and the north office's
        // wall (each shared with the corridor, counted once).
        #expect(walls.wallsCrossed(fromX: 1, fromY: 2, toX: 1, toY: 10, floor: 0) == 2)
        // Through both doors at x = 3: none.
        #expect(walls.wallsCrossed(fromX: 3, fromY: 2, toX: 3, toY: 10, floor: 0) == 0)
        // Across three office partitions.
        #expect(walls.wallsCrossed(fromX: 3, fromY: 2, toX: 21, toY: 2, floor: 0) == 3)
    }

    @Test func simulatorSubtractsTheWallLoss() {
        let track = SimulatedOffice.walk()
        var quiet = SimulatedOffice.configuration(wallLossDB: 5)
        quiet.shadowingSigmaDB = 0
        quiet.rssiDecimals = nil
        var rng = SplitMix64(seed: 3)
        let packets = Simulator(venue: office, configuration: quiet).simulate(tracks: [track], using: &rng)
        let walls = WallMap(venue: office)!
        var checked = 0
        for p in packets.prefix(500) {
            let a = office.anchors.first { $0.id == p.observation.anchor }!
            let z = p.truth.z ?? 1.2
            let d = ((p.truth.x - a.x) * (p.truth.x - a.x) + (p.truth.y - a.y) * (p.truth.y - a.y)
                + (z - a.z) * (z - a.z)).squareRoot()
            let n = walls.wallsCrossed(fromX: a.x, fromY: a.y, toX: p.truth.x, toY: p.truth.y, floor: 0)
            #expect(abs(p.observation.rssiDBm - (office.model.rssiDBm(atDistanceMeters: d) - 5 * Double(n))) < 1e-9)
            if n > 0 { checked += 1 }
        }
        #expect(checked > 100)
    }

    /// With walls on, every fix is inside the walkable area and replays repeat exactly; a venue without rooms is
    /// unaffected.
    @Test func engineWithWallsStaysWalkableAndDeterministic() throws {
        var rng = SplitMix64(seed: 11)
        let packets = Simulator(venue: office, configuration: SimulatedOffice.configuration())
            .simulate(tracks: [SimulatedOffice.walk()], using: &rng)
        var c = EngineConfiguration.moving
        c.targetHeightMeters = 1.2
        c.usesWalls = true
        let observations = packets.map(\.observation)
        let fixes = replay(observations, venue: office, configuration: c)
        let walls = try #require(WallMap(venue: office))
        #expect(fixes.count > 100)
        #expect(fixes.allSatisfy { walls.isWalkable(x: $0.x, y: $0.y, floor: 0) })
        #expect(fixes.allSatisfy { $0.horizontalAccuracyMeters.isFinite && $0.horizontalAccuracyMeters > 0 })
        #expect(replay(observations, venue: office, configuration: c) == fixes)
        let report = Evaluator.evaluate(fixes: fixes, truth: packets.map(\.truth))
        #expect((report.median ?? .infinity) < 5, "median \(report.median ?? .nan)")
        let plain = testVenue()
        let walk = simulatedWalk(seconds: 30, venue: plain, seed: 9)
        var without = c
        without.usesWalls = false
        #expect(replay(walk.observations, venue: plain, configuration: c)
                == replay(walk.observations, venue: plain, configuration: without))
    }

    /// Walls in the measurement model: the expected RSSI, the residual and the linearized residual each lose the
    /// wall loss for every wall between anchor and position, and gain no gradient from it.
    @Test func theMeasurementModelSubtractsTheWallsBetweenAnchorAndPosition() throws {
        let walls = WallAttenuation(map: try #require(WallMap(venue: office)), lossDB: 4)
        let plain = RSSIMeasurement(anchorX: 1, anchorY: 2, model: office.model, rssiDBm: -70, sigmaDB: 3)
        var walled = plain
        walled.walls = walls
        // Two walls from office south-1 to north-1 at x = 1; none within the office.
        for (x, y, n) in [(1.0, 10.0, 2.0), (4.0, 4.0, 0.0), (21.0, 2.0, 3.0)] {
            #expect(abs(walled.predictedRSSIDBm(x: x, y: y) - (plain.predictedRSSIDBm(x: x, y: y) - 4 * n)) < 1e-12)
            let residual = walled.residual(x: x, y: y).residualDB
            #expect(abs(residual - (plain.residual(x: x, y: y).residualDB + 4 * n)) < 1e-12)
            let a = walled.linearize(x: x, y: y), b = plain.linearize(x: x, y: y)
            #expect(abs(a.residual - (b.residual + 4 * n / 3)) < 1e-12)
            #expect(a.gx == b.gx && a.gy == b.gy)
        }
        // Another floor has no walls.
        walled.floor = 1
        #expect(walled.predictedRSSIDBm(x: 1, y: 10) == plain.predictedRSSIDBm(x: 1, y: 10))
    }

    /// In the simulated office with 5 dB walls, a model that knows them (at their true loss) halves the median
    /// error and puts more fixes in the right room; at 0 dB the engine's fixes are exactly those of a model
    /// without walls, and a venue without rooms is unaffected.
    @Test func wallsInTheModelHelpWhereWallsCostWhatTheModelSays() throws {
        let track = SimulatedOffice.walk()
        var off = EngineConfiguration.moving
        off.targetHeightMeters = 1.2
        var on = off
        on.wallLossDB = 5
        let rooms = RoomMap(rooms: office.rooms)
        var medians: [Double] = [], inRoom: [Int] = [0, 0], scored = 0
        for (k, configuration) in [off, on].enumerated() {
            var errors: [Double] = []
            for seed in 1...4 {
                var rng = SplitMix64(seed: UInt64(seed))
                let packets = Simulator(venue: office, configuration: SimulatedOffice.configuration(wallLossDB: 5))
                    .simulate(tracks: [track], using: &rng)
                let fixes = replay(packets.map(\.observation), venue: office, configuration: configuration)
                errors += Evaluator.score(fixes: fixes, truth: packets.map(\.truth), scoring: .movingDefault)
                    .map(\.errorMeters)
                for fix in fixes where fix.timestamp <= track.endTime {
                    let truth = track.position(at: fix.timestamp)
                    guard let room = rooms.room(x: truth.x, y: truth.y, floor: 0), truth.y != 5, truth.y != 7 else {
                        continue
                    }
                    if k == 0 { scored += 1 }
                    if rooms.room(x: fix.x, y: fix.y, floor: 0) == room { inRoom[k] += 1 }
                }
            }
            errors.sort()
            medians.append(try #require(Percentile.of(sorted: errors, 50)))
        }
        #expect(medians[1] < 0.7 * medians[0], "median without walls \(medians[0]) m, with \(medians[1]) m")
        #expect(inRoom[1] > inRoom[0] && scored > 100, "in the right room \(inRoom) of \(scored)")
        var rng = SplitMix64(seed: 2)
        let packets = Simulator(venue: office, configuration: SimulatedOffice.configuration(wallLossDB: 5))
            .simulate(tracks: [track], using: &rng)
        var zero = off
        zero.wallLossDB = 0
        #expect(replay(packets.map(\.observation), venue: office, configuration: zero)
                == replay(packets.map(\.observation), venue: office, configuration: off))
        let plain = testVenue()
        let walk = simulatedWalk(seconds: 30, venue: plain, seed: 9)
        #expect(replay(walk.observations, venue: plain, configuration: on)
                == replay(walk.observations, venue: plain, configuration: off))
    }

    /// The calibrator fits the loss per wall with the models: on a survey of the simulated office with 5 dB walls it
    /// finds about 5 dB and the site's true model; without walls in the survey about 0; a venue without rooms gets
    /// none; and the calibrated venue carries it to the engine.
    @Test func theCalibratorFitsTheWallLossWithTheModels() throws {
        func survey(wallLossDB: Double) -> [CalibrationSample] {
            var rng = SplitMix64(seed: 21)
            let packets = Simulator(venue: office, configuration: SimulatedOffice.configuration(wallLossDB: wallLossDB))
                .simulate(tracks: [SimulatedOffice.walk()], using: &rng)
            return packets.map {
                CalibrationSample(anchor: $0.observation.anchor, rssiDBm: $0.observation.rssiDBm, x: $0.truth.x,
                                  y: $0.truth.y, z: $0.truth.z ?? 1.2)
            }
        }
        var calibrator = PathLossCalibrator()
        calibrator.fitsWallLoss = true
        let five = calibrator.fit(survey(wallLossDB: 5), venue: office)
        let loss = try #require(five.wallLossDB)
        #expect(abs(loss - 5) < 1, "fitted \(loss) dB per wall")
        #expect(abs(five.site.model.pathLossExponent - office.model.pathLossExponent) < 0.3)
        let none = try #require(calibrator.fit(survey(wallLossDB: 0), venue: office).wallLossDB)
        #expect(none < 0.7, "fitted \(none) dB per wall where there is none")
        #expect(calibrator.fit(survey(wallLossDB: 5), venue: testVenue()).wallLossDB == nil)
        #expect(PathLossCalibrator().fit(survey(wallLossDB: 5), venue: office).wallLossDB == nil)
        let calibrated = five.applied(to: office)
        #expect(calibrated.wallLossDB == loss)
        // The engine takes the venue's loss unless its configuration sets one.
        var rng = SplitMix64(seed: 4)
        let packets = Simulator(venue: office, configuration: SimulatedOffice.configuration(wallLossDB: 5))
            .simulate(tracks: [SimulatedOffice.walk()], using: &rng)
        var c = EngineConfiguration.moving
        c.targetHeightMeters = 1.2
        var explicit = c
        explicit.wallLossDB = loss
        var withoutLoss = calibrated
        withoutLoss.wallLossDB = nil
        let observations = packets.prefix(1500).map(\.observation)
        #expect(replay(observations, venue: calibrated, configuration: c)
                == replay(observations, venue: withoutLoss, configuration: explicit))
    }
}
