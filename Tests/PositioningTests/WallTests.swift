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
        #expect(fixes.allSatisfy { $0.horizontalAccuracy.isFinite && $0.horizontalAccuracy > 0 })
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
}
