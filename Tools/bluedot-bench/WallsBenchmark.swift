import Foundation
import BlueDotCore
import Positioning

/// `bluedot-bench walls [--seeds N] [--wall-loss DB] [--model-loss DB] [--temper T] [--particles N]`: the simulated
/// office (`SimulatedOffice`) walked with N seeds, replayed without walls, with the wall-bound particles
/// (`usesWalls`), with walls in the measurement model (`wallLossDB`, by default the simulated loss: the venue's
/// true model known) and with both; then with the models fitted on a survey of the walk, without and with a
/// fitted loss per wall (`PathLossCalibrator.fitsWallLoss`). Prints, pooled over the seeds: median and p90 error,
/// coverage of the 68% radius, the share of fixes in the room the walker is in (rooms by `RoomMap`, points on a
/// wall line left out), the share of fixes outside the walkable area, and how often two consecutive fixes cross a
/// wall away from every door.
enum WallsBenchmark {
    static func run(_ arguments: [String]) throws {
        var seeds = 10, wallLoss = 5.0, modelLoss: Double?, temper: Double?, particles: Int?
        var i = 0
        while i < arguments.count {
            guard i + 1 < arguments.count, let v = Double(arguments[i + 1]) else {
                throw BenchError("\(arguments[i]) needs a number")
            }
            switch arguments[i] {
            case "--seeds": seeds = Int(v)
            case "--wall-loss": wallLoss = v
            case "--model-loss": modelLoss = v
            case "--temper": temper = v
            case "--particles": particles = Int(v)
            default: throw BenchError("unknown option \(arguments[i])")
            }
            i += 2
        }
        let venue = SimulatedOffice.venue()
        let walls = WallMap(venue: venue)!
        let rooms = RoomMap(rooms: venue.rooms)
        let simulator = Simulator(venue: venue, configuration: SimulatedOffice.configuration(wallLossDB: wallLoss))
        let track = SimulatedOffice.walk()
        print(String(format: "simulated office: %d seeds, %.0f dB per wall, walk of %.0f s", seeds, wallLoss,
                     track.endTime - track.startTime))
        let loss = modelLoss ?? wallLoss
        print(String(format: "walls in the model at %.1f dB per wall", loss))
        print("walls      median    p90  cov68  in the right room  outside walls  wall crossings")
        // A survey of the same walk (seeds of its own) fits the models, and for "fitted" the loss per wall too,
        // as `bluedot-calibrate fit [--fit-walls]` would on a real site.
        var survey: [CalibrationSample] = []
        for seed in 1001...1003 {
            var rng = SplitMix64(seed: UInt64(seed))
            survey += simulator.simulate(tracks: [track], using: &rng).map {
                CalibrationSample(anchor: $0.observation.anchor, rssiDBm: $0.observation.rssiDBm, x: $0.truth.x,
                                  y: $0.truth.y, z: $0.truth.z ?? 1.2)
            }
        }
        var calibrator = PathLossCalibrator()
        let surveyed = calibrator.fit(survey, venue: venue).applied(to: venue)
        calibrator.fitsWallLoss = true
        let fitted = calibrator.fit(survey, venue: venue).applied(to: venue)
        print(String(format: "fitted on a survey: %.2f dB per wall", fitted.wallLossDB ?? .nan))
        for (name, usesWalls, modelWalls, site) in [("off", false, false, venue), ("particles", true, false, venue),
                                                     ("model", false, true, venue), ("both", true, true, venue),
                                                     ("surveyed", false, false, surveyed),
                                                     ("fitted", false, false, fitted)] {
            var configuration = EngineConfiguration.moving
            configuration.targetHeightMeters = 1.2
            configuration.usesWalls = usesWalls
            // "surveyed" and "fitted" take the venue's own (nil: its fitted loss, when it has one).
            configuration.wallLossDB = site.wallLossDB != nil ? nil : modelWalls ? loss : 0
            if let temper { configuration.wallLikelihoodTemper = temper }
            if let particles { configuration.wallParticles = particles }
            var errors: [Double] = []
            var covered = 0, inRoom = 0, roomScored = 0, outside = 0, crossings = 0, fixes = 0
            for seed in 1...seeds {
                var rng = SplitMix64(seed: UInt64(seed))
                let packets = simulator.simulate(tracks: [track], using: &rng)
                var engine = PositioningEngine(venue: site, configuration: configuration)
                var out: [Location] = []
                for p in packets { engine.ingest(p.observation, into: &out) }
                engine.finish(into: &out)
                let scored = Evaluator.score(fixes: out, truth: packets.map(\.truth), scoring: .movingDefault)
                errors += scored.map(\.errorMeters)
                covered += scored.filter(\.isCovered).count
                for fix in out where fix.timestamp <= track.endTime {
                    fixes += 1
                    if !walls.isWalkable(x: fix.x, y: fix.y, floor: 0) { outside += 1 }
                    let truth = track.position(at: fix.timestamp)
                    if let trueRoom = rooms.room(x: truth.x, y: truth.y, floor: 0), truth.y != 5, truth.y != 7 {
                        roomScored += 1
                        if rooms.room(x: fix.x, y: fix.y, floor: 0) == trueRoom { inRoom += 1 }
                    }
                }
                for (a, b) in zip(out, out.dropFirst())
                where walls.blocks(fromX: a.x, fromY: a.y, toX: b.x, toY: b.y, floor: 0) { crossings += 1 }
            }
            errors.sort()
            print(String(format: "%@ %7.2f %6.2f  %5.3f  %17.3f  %13.3f  %14d",
                         name.padding(toLength: 9, withPad: " ", startingAt: 0),
                         Percentile.of(sorted: errors, 50) ?? .nan, Percentile.of(sorted: errors, 90) ?? .nan,
                         Double(covered) / Double(max(errors.count, 1)), Double(inRoom) / Double(max(roomScored, 1)),
                         Double(outside) / Double(max(fixes, 1)), crossings))
        }
    }
}
