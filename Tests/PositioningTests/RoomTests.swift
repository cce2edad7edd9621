import BlueDotCore
import Foundation
import Testing
@testable import Positioning

/// Two rooms side by side, 6 m × 5 m each, sharing the wall x = 6, and a hall of 12 m × 3 m below them with a
/// pillar (a hole) in it.
private func twoRooms() -> [Venue.Room] {
    func p(_ x: Double, _ y: Double) -> Venue.PlanPoint { Venue.PlanPoint(x: x, y: y) }
    return [
        Venue.Room(id: "west", name: "West office", polygon: [p(0, 3), p(6, 3), p(6, 8), p(0, 8)]),
        Venue.Room(id: "east", name: "East office", polygon: [p(6, 3), p(12, 3), p(12, 8), p(6, 8), p(6, 3)]),
        Venue.Room(id: "hall", polygon: [p(0, 0), p(12, 0), p(12, 3), p(0, 3)],
                   holes: [[p(5, 1), p(7, 1), p(7, 2), p(5, 2)]]),
    ]
}

@Suite struct RoomMapTests {
    /// Containment follows the polygon and its hole; the closing point of a ring changes nothing.
    @Test func pointsAreInTheirRoomAndNotInAHole() {
        let map = RoomMap(rooms: twoRooms())
        #expect(map.room(x: 3, y: 5, floor: nil) == 0)
        #expect(map.room(x: 9, y: 5, floor: 0) == 1)
        #expect(map.room(x: 2, y: 1.5, floor: nil) == 2)
        #expect(map.room(x: 6, y: 1.5, floor: nil) == nil, "inside the pillar")
        #expect(map.room(x: 13, y: 5, floor: nil) == nil)
        #expect(map.room(x: 3, y: 5, floor: 1) == nil, "another floor")
    }

    /// A small radius deep inside a room puts all the mass there; on the shared wall the two rooms split it
    /// evenly; the probabilities of a fix fully inside the rooms add to one.
    @Test func probabilityFollowsPositionAndRadius() throws {
        let map = RoomMap(rooms: twoRooms())
        let deep = map.probabilities(x: 3, y: 5.5, radius68: 0.5, floor: nil)
        #expect(deep.count == 1 && deep[0].room == 0 && deep[0].p == 1)
        let wall = map.probabilities(x: 6, y: 5.5, radius68: 1.0, floor: nil)
        let west = try #require(wall.first { $0.room == 0 }).p, east = try #require(wall.first { $0.room == 1 }).p
        #expect(abs(west - 0.5) < 0.07 && abs(east - 0.5) < 0.07, "west \(west) east \(east)")
        #expect(abs(wall.reduce(0) { $0 + $1.p } - 1) < 1e-9)
        // One metre into the west room with a 1 m radius: the west room is clearly more likely, the east still
        // has some mass.
        let near = map.probabilities(x: 5, y: 5.5, radius68: 1.0, floor: nil)
        let nearWest = try #require(near.first { $0.room == 0 }).p
        #expect(nearWest > 0.75 && nearWest < 0.98, "\(nearWest)")
    }

    /// With the venue's bounds, mass outside them is left out: a vague fix by the outer wall of rooms that fill the
    /// bounds is in a room, where without bounds half of it is outside every room.
    @Test func massOutsideTheBoundsIsLeftOut() throws {
        let open = RoomMap(rooms: twoRooms())
        let bounded = RoomMap(rooms: twoRooms(), bounds: Venue.Bounds(minX: 0, minY: 0, maxX: 12, maxY: 8))
        let outside = open.probabilities(x: 3, y: 7.9, radius68: 2, floor: nil).reduce(0) { $0 + $1.p }
        #expect(outside < 0.6, "about half of the mass is north of the rooms: \(outside)")
        let inside = bounded.probabilities(x: 3, y: 7.9, radius68: 2, floor: nil)
        #expect(abs(inside.reduce(0) { $0 + $1.p } - 1) < 0.02, "\(inside)")
        let west = try #require(inside.first { $0.room == 0 }).p
        #expect(west > 0.75 && west <= 1, "\(west)")
        // Far inside, the bounds change nothing.
        let deep = bounded.probabilities(x: 3, y: 5.5, radius68: 0.5, floor: nil)
        #expect(deep.count == 1 && deep[0].p == 1)
    }

    /// The cubature integrates the Gaussian: the mass within a half plane at distance d is Φ(d/σ) within the
    /// resolution of 128 points.
    @Test func halfPlaneMassMatchesTheNormalDistribution() {
        let huge = Venue.Room(id: "half", polygon: [
            Venue.PlanPoint(x: -1000, y: -1000), Venue.PlanPoint(x: 0, y: -1000),
            Venue.PlanPoint(x: 0, y: 1000), Venue.PlanPoint(x: -1000, y: 1000),
        ])
        let map = RoomMap(rooms: [huge])
        let sigma = 1 / RoomMap.radius68PerSigma
        for d in [0.25, 0.5, 1.0, 1.5] {
            let p = map.probabilities(x: -d * sigma, y: 0, radius68: 1, floor: nil).first?.p ?? 0
            let expected = 0.5 * erfc(-d / 2.0.squareRoot())
            #expect(abs(p - expected) < 0.05, "d \(d): \(p) vs \(expected)")
        }
    }
}

@Suite struct RoomTrackerTests {
    /// Probabilities hovering about one half between two rooms change nothing once the target is in one; a
    /// clear move holds for the dwell time and then switches; without hysteresis every swing is a flap.
    @Test func hysteresisHoldsAtTheWallAndFollowsAClearMove() {
        var tracker = RoomTracker()
        var plain = RoomTracker()
        let rules = RoomHysteresis(enterProbability: 0.6, leaveProbability: 0.3, dwellSeconds: 3)
        _ = tracker.update([(0, 0.9), (1, 0.1)], t: 0, rules: rules)
        _ = plain.update([(0, 0.9), (1, 0.1)], t: 0, rules: .none)
        #expect(tracker.current == 0)
        var flaps = 0, plainFlaps = 0
        var last = tracker.current, plainLast = plain.current
        for k in 1...60 {
            let west = k.isMultiple(of: 2) ? 0.45 : 0.55
            _ = tracker.update([(0, west), (1, 1 - west)], t: Double(k), rules: rules)
            _ = plain.update([(0, west), (1, 1 - west)], t: Double(k), rules: .none)
            if tracker.current != last { flaps += 1 }
            if plain.current != plainLast { plainFlaps += 1 }
            last = tracker.current
            plainLast = plain.current
        }
        #expect(flaps == 0 && tracker.current == 0)
        #expect(plainFlaps >= 59)
        // A clear move east: pending for 3 s of fix time, then in the east room.
        let (room61, p61) = tracker.update([(0, 0.2), (1, 0.8)], t: 61, rules: rules)
        #expect(room61 == 0 && abs(p61 - 0.2) < 1e-12)
        _ = tracker.update([(0, 0.2), (1, 0.8)], t: 63, rules: rules)
        #expect(tracker.current == 0)
        let (room64, p64) = tracker.update([(0, 0.1), (1, 0.9)], t: 64, rules: rules)
        #expect(room64 == 1 && abs(p64 - 0.9) < 1e-12)
    }

    /// Leaving for no room: below the leave probability for the dwell time; a brief dip does not leave.
    @Test func leavesOnlyAfterTheDwell() {
        var tracker = RoomTracker()
        let rules = RoomHysteresis(enterProbability: 0.6, leaveProbability: 0.3, dwellSeconds: 2)
        _ = tracker.update([(0, 0.7)], t: 0, rules: rules)
        _ = tracker.update([(0, 0.1)], t: 1, rules: rules)
        _ = tracker.update([(0, 0.5)], t: 2, rules: rules)  // back between the thresholds: the leave is off
        _ = tracker.update([(0, 0.1)], t: 3, rules: rules)
        _ = tracker.update([(0, 0.1)], t: 4, rules: rules)
        #expect(tracker.current == 0)
        let (room, p) = tracker.update([], t: 5, rules: rules)
        #expect(room == nil && p == 0)
        // Not entered below the enter probability, however long.
        for t in 6...20 { _ = tracker.update([(0, 0.55)], t: Double(t), rules: rules) }
        #expect(tracker.current == nil)
    }

    /// A target standing still (its filter below the still speed for the still time) needs the stationary rules'
    /// stronger evidence to change rooms; the same probabilities move a target that walks after the ordinary dwell.
    @Test func aTargetStandingStillNeedsStrongerEvidence() {
        let rules = RoomHysteresis()
        var sitting = RoomTracker(), walking = RoomTracker()
        for t in 0...10 {
            _ = sitting.update([(0, 0.9), (1, 0.1)], t: Double(t), speed: 0.05, rules: rules)
            _ = walking.update([(0, 0.9), (1, 0.1)], t: Double(t), speed: 1.2, rules: rules)
        }
        #expect(sitting.standsStill(at: 10, rules: rules) && !walking.standsStill(at: 10, rules: rules))
        // The east room at 0.8 for 4 s: the walker moves after 2 s, the sitter stays.
        for t in 11...15 {
            _ = sitting.update([(0, 0.2), (1, 0.8)], t: Double(t), speed: 0.05, rules: rules)
            _ = walking.update([(0, 0.2), (1, 0.8)], t: Double(t), speed: 1.2, rules: rules)
        }
        #expect(walking.current == 1 && sitting.current == 0)
        // Clear evidence (0.9) held for the stationary dwell moves the sitter too.
        for t in 16...21 { _ = sitting.update([(0, 0.1), (1, 0.9)], t: Double(t), speed: 0.05, rules: rules) }
        #expect(sitting.current == 0, "5 s of 0.9: not yet the 6 s dwell")
        _ = sitting.update([(0, 0.1), (1, 0.9)], t: 22, speed: 0.05, rules: rules)
        #expect(sitting.current == 1)
        // Getting up: a walking speed lifts the 2 s average over the still speed, and the ordinary rules apply.
        _ = sitting.update([(0, 0.8), (1, 0.2)], t: 23, speed: 1.2, rules: rules)
        #expect(!sitting.standsStill(at: 23, rules: rules))
    }

    /// The engine over a simulated person sitting 0.15 m from the shared wall for ten minutes (shadowing 6 dB):
    /// holding a standing target harder cuts its room changes, and it stays in its room.
    @Test func someoneSittingByTheWallKeepsTheirRoom() {
        let venue = Self.wallVenue()
        let track = Track(target: "tag", waypoints: [
            Track.Waypoint(t: 0, x: 5.85, y: 5), Track.Waypoint(t: 600, x: 5.85, y: 5),
        ])
        func changes(_ rules: RoomHysteresis) -> (changes: Int, west: Double) {
            let (changes, live) = Self.roomChanges(venue, track, seed: 8, shadowingSigmaDB: 6, rules: rules, until: 600)
            return (changes, Double(live.filter { $0.room == "west" }.count) / Double(max(1, live.count)))
        }
        let held = changes(RoomHysteresis())
        let before = changes(.ignoringStillness)
        #expect(held.changes * 3 <= before.changes, "held \(held.changes) changes, before \(before.changes)")
        #expect(before.changes >= 4, "the sitter must be hard enough to flap without the stillness rule")
        #expect(held.west >= before.west, "in the west room \(held.west) of the time, before \(before.west)")
    }

    /// A last-known fix keeps its target's room however its radius grows; a current one moves it as before.
    @Test func aLastKnownFixKeepsTheRoom() {
        let map = RoomMap(rooms: twoRooms())
        var tracker = RoomTracker()
        var fix = Location(timestamp: 0, targetID: "t", x: 3, y: 5.5, horizontalAccuracyMeters: 1)
        map.assign(&fix, tracker: &tracker, rules: RoomHysteresis())
        #expect(fix.room == "west")
        var silent = Location(timestamp: 20, targetID: "t", x: 3, y: 5.5, horizontalAccuracyMeters: 9, lastKnown: true)
        map.assign(&silent, tracker: &tracker, rules: RoomHysteresis())
        #expect(silent.room == "west" && (silent.roomProbability ?? 1) < 0.5, "held, with its real probability")
        for t in 21...30 {
            var heard = Location(timestamp: Double(t), targetID: "t", x: 9, y: 5.5, horizontalAccuracyMeters: 1)
            map.assign(&heard, tracker: &tracker, rules: RoomHysteresis())
        }
        #expect(tracker.current == 1, "heard in the east room: moved")
    }

    /// A target standing in the east room walks into the west room and falls silent 2.5 s after it got there: its
    /// room is decided 3 s behind each fix, and after 2 s in the new room (the dwell), so its last current fix is
    /// still in the east; the first last-known fix decides over the lag's last seconds, and says west.
    @Test func aTargetFallingSilentGetsTheRoomOfItsLastSeconds() {
        let venue = Self.wallVenue()
        let track = Track(target: "tag", waypoints: [
            Track.Waypoint(t: 0, x: 9, y: 5.5), Track.Waypoint(t: 6, x: 9, y: 5.5), Track.Waypoint(t: 10, x: 3, y: 5.5),
            Track.Waypoint(t: 12.5, x: 3, y: 5.5),
        ])
        var rng = Xoshiro256StarStar(seed: 3)
        let heard = Simulator(venue: venue, configuration: SimulationConfiguration(
            rateHz: 5, shadowingSigmaDB: 0)).simulate(tracks: [track], using: &rng).map(\.observation)
        var engine = PositioningEngine(venue: venue, configuration: .moving)
        #expect(EngineConfiguration.moving.roomLagSeconds == 3)
        var fixes: [Location] = []
        for observation in heard { engine.ingest(observation, into: &fixes) }
        engine.finish(into: &fixes)
        let current = fixes.filter { !$0.lastKnown }, silent = fixes.filter(\.lastKnown)
        #expect(current.last?.room == "east", "\(current.map(\.room))")
        #expect(current.allSatisfy { f in f.smoothed.map { $0.timestamp <= f.timestamp } ?? false })
        #expect(current.last.map { f in f.smoothed.map { abs(f.timestamp - 3 - $0.timestamp) < 0.6 } ?? false } ?? false,
                "the newest fix carries the position of 3 s before it")
        #expect(silent.allSatisfy { $0.smoothed == nil })
        #expect(!silent.isEmpty && silent.allSatisfy { $0.room == "west" }, "\(silent.map(\.room))")
    }

    /// A person sitting in the west room whose phone goes quiet for 4 min (longer than the engine's 30 s holdover)
    /// and wakes heard first by one far receiver in the east: the new track's first fix sits by that receiver, and
    /// only with the room remembered does the room hold through the silence and the wake.
    @Test func aPhoneWakingFromAQuietSpellResumesInItsRoom() {
        let venue = Self.wallVenue()
        let track = Track(target: "phone", waypoints: [
            Track.Waypoint(t: 0, x: 3, y: 5.5), Track.Waypoint(t: 600, x: 3, y: 5.5),
        ])
        var rng = Xoshiro256StarStar(seed: 5)
        let heard = Simulator(venue: venue, configuration: SimulationConfiguration(
            rateHz: 1, shadowingSigmaDB: 3)).simulate(tracks: [track], using: &rng).map(\.observation)
        // The east receiver a1 at (12, 3), alone and loud: a lone report of the waking phone.
        let observations = heard.filter { $0.t < 120 } + [Observation(t: 360, anchor: "a1", target: "phone", rssiDBm: -62)]
            + heard.filter { $0.t >= 362 }
        func rooms(memory: Double) -> [String?] {
            var configuration = EngineConfiguration.moving
            configuration.roomMemorySeconds = memory
            var engine = PositioningEngine(venue: venue, configuration: configuration)
            var fixes: [Location] = []
            for o in observations { engine.ingest(o, into: &fixes) }
            #expect(fixes.contains { $0.timestamp > 120 && $0.timestamp < 150 && $0.lastKnown })
            #expect(!fixes.contains { $0.timestamp > 155 && $0.timestamp < 360 }, "forgotten after the holdover")
            return fixes.filter { $0.timestamp >= 60 && $0.timestamp <= 560 }.map(\.room)
        }
        let resumed = rooms(memory: 3600), fresh = rooms(memory: 0)
        #expect(resumed.allSatisfy { $0 == "west" }, "\(resumed)")
        #expect(fresh.contains { $0 != "west" }, "without the memory, the lone far report moves it")
    }

    /// The engine (moving configuration, `rules`, the room `lag` seconds behind) over `track` simulated at 5 Hz: the
    /// fixes up to `until` and how often their room changes.
    static func roomChanges(_ venue: Venue, _ track: Track, seed: UInt64, shadowingSigmaDB: Double,
                            rules: RoomHysteresis, lag: Double = EngineConfiguration.moving.roomLagSeconds,
                            until: Double) -> (changes: Int, fixes: [Location]) {
        var rng = Xoshiro256StarStar(seed: seed)
        let packets = Simulator(venue: venue, configuration: SimulationConfiguration(
            rateHz: 5, shadowingSigmaDB: shadowingSigmaDB)).simulate(tracks: [track], using: &rng)
        var configuration = EngineConfiguration.moving
        configuration.roomHysteresis = rules
        configuration.roomLagSeconds = lag
        var engine = PositioningEngine(venue: venue, configuration: configuration)
        var fixes: [Location] = []
        for packet in packets { engine.ingest(packet.observation, into: &fixes) }
        let live = fixes.filter { $0.timestamp <= until }
        var changes = 0
        for (a, b) in zip(live, live.dropFirst()) where a.room != b.room { changes += 1 }
        return (changes, live)
    }

    static func wallVenue() -> Venue {
        var anchors: [Anchor] = []
        for (i, (x, y)) in [(0.0, 3.0), (12, 3), (0, 8), (12, 8), (6, 0), (6, 11), (3, 5.5), (9, 5.5)].enumerated() {
            anchors.append(Anchor(id: "a\(i)", x: x, y: y, z: 2.5))
        }
        return Venue(name: "wall", model: PathLossModel(measuredPowerDBm: -59, pathLossExponent: 2.2,
                                                        shadowingSigmaDB: 4),
                     anchors: anchors, bounds: Venue.Bounds(minX: 0, minY: 0, maxX: 12, maxY: 11), rooms: twoRooms())
    }

    /// The engine over a simulated walk along the shared wall (0.3 m into the west room, 40 s, shadowing 4 dB):
    /// every fix names a room and a probability; with the default hysteresis the target flaps far less than with
    /// the most likely room at every fix (both decided at the fix, and both 3 s behind it, the default), and it ends
    /// in the room it walked in.
    @Test func walkAlongTheWallFlapsLessWithHysteresis() {
        let venue = Self.wallVenue()
        let track = Track(target: "tag", waypoints: [
            Track.Waypoint(t: 0, x: 5.7, y: 3.5), Track.Waypoint(t: 40, x: 5.7, y: 7.5),
        ])
        func flaps(_ rules: RoomHysteresis, lag: Double = 0) -> (flaps: Int, last: String?, fixes: [Location]) {
            let (changes, live) = Self.roomChanges(venue, track, seed: 21, shadowingSigmaDB: 4, rules: rules, lag: lag,
                                                   until: 40)
            return (changes, live.last?.room, live)
        }
        let held = flaps(RoomHysteresis())
        let plain = flaps(.none)
        #expect(held.fixes.count >= 38)
        #expect(held.fixes.allSatisfy { $0.roomProbability != nil && ($0.roomProbability ?? -1) >= 0 })
        #expect(held.flaps * 3 <= plain.flaps, "hysteresis \(held.flaps) flaps, none \(plain.flaps)")
        #expect(plain.flaps >= 3, "the walk must be hard enough to flap without hysteresis")
        #expect(held.last == "west")
        let lag = EngineConfiguration.moving.roomLagSeconds
        let lagged = flaps(RoomHysteresis(), lag: lag), laggedPlain = flaps(.none, lag: lag)
        #expect(lagged.flaps <= 1 && lagged.flaps * 3 <= laggedPlain.flaps && lagged.last == "west",
                "lagged \(lagged.flaps), lagged without hysteresis \(laggedPlain.flaps), at the fix \(held.flaps) and \(plain.flaps)")
    }
}
