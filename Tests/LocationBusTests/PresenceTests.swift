import BlueDotCore
import LocationBus
import Positioning
import Testing

/// A flat: a bedroom, a hall, and a porch (the exit) east of the hall.
private let flat: [Venue.Room] = [
    Venue.Room(id: "bedroom", polygon: [.init(x: 0, y: 0), .init(x: 4, y: 0), .init(x: 4, y: 4), .init(x: 0, y: 4)]),
    Venue.Room(id: "hall", polygon: [.init(x: 4, y: 0), .init(x: 10, y: 0), .init(x: 10, y: 4), .init(x: 4, y: 4)]),
    Venue.Room(id: "porch", polygon: [.init(x: 10, y: 0), .init(x: 13, y: 0), .init(x: 13, y: 4), .init(x: 10, y: 4)],
               exit: true),
]

private func fix(_ id: String, _ x: Double, room: String?, lastKnown: Bool = false) -> Location {
    Location(timestamp: 0, targetID: id, x: x, y: 2, horizontalAccuracyMeters: 1, lastKnown: lastKnown, room: room,
             roomProbability: room == nil ? nil : 0.9)
}

extension LocationSource {
    /// `update`, with each location stamped at the clock's time: made and delivered at once.
    fileprivate func update(_ locations: [Location], madeAt clock: ManualClock) {
        update(locations.map { var l = $0; l.timestamp = clock.now(); return l })
    }
}

@Suite("Presence: where the silence began")
struct PresenceTests {
    /// A source over the flat with the default timeouts at the door and inside, on a manual clock, observed.
    static func flatSource() -> (ManualClock, LocationSource, RecordingObserver) {
        let clock = ManualClock(start: 0)
        let source = LocationSource(id: "tags", deleteAfterSeconds: 60, clock: clock,
                                    presence: PresenceRule(rooms: flat, awayAfterSeconds: 120, awayAfterSecondsInside: 2700))
        let observer = RecordingObserver()
        source.addObserver(observer)
        return (clock, source, observer)
    }

    @Test func theRuleKnowsExitsByRoomPositionAndFloor() {
        let rule = PresenceRule(rooms: flat, awayAfterSeconds: 120, awayAfterSecondsInside: 2700)
        #expect(rule.hasExits && rule.exitRooms == ["porch"])
        #expect(rule.isAtExit(fix("a", 11, room: "porch")))
        #expect(rule.isAtExit(fix("a", 14, room: nil)), "outdoors, 1 m from the porch, is beside it")
        #expect(!rule.isAtExit(fix("a", 8.5, room: "hall")), "1.5 m from the porch, but inside the hall")
        #expect(rule.isInside(fix("a", 8.5, room: nil)) && !rule.isInside(fix("a", 11, room: nil)))
        var lagging = fix("a", 11, room: "hall")
        lagging.roomProbability = 0.1
        #expect(rule.isAtExit(lagging), "in the porch by its position, whatever its lagging room says")
        #expect(!rule.isAtExit(fix("a", 16, room: nil)), "3 m from the porch is not")
        var vague = fix("a", 14, room: nil)
        vague.horizontalAccuracyMeters = 12
        #expect(!rule.isAtExit(vague), "a fix whose radius spans the flat is no evidence of the door")
        var spilling = fix("a", 10.3, room: "hall")
        spilling.horizontalAccuracyMeters = 3
        #expect(rule.isAtExit(spilling), "a fifth of its probability in the porch, and no more in the hall")
        var nearTheWall = fix("a", 9.6, room: "hall")
        nearTheWall.horizontalAccuracyMeters = 3
        #expect(!rule.isAtExit(nearTheWall), "a fifth in the porch, but more in the hall: sitting by its wall")
        #expect(rule.isAtExit(nearTheWall, walking: true), "a walker's fixes trail them: a fifth is enough")
        var halfInTheHall = fix("a", 9.3, room: "hall")
        halfInTheHall.horizontalAccuracyMeters = 2
        #expect(rule.isInside(halfInTheHall))
        #expect(!rule.isAtExit(halfInTheHall, walking: true), "a fifth in the porch, but half in the hall: in the hall")
        #expect(!rule.isAtExit(fix("a", 2, room: "bedroom")))
        var upstairs = fix("a", 11, room: nil)
        upstairs.floor = 1
        #expect(!rule.isAtExit(upstairs), "the porch is on floor 0")
        #expect(rule.timeout(leaving: true) == 120 && rule.timeout(leaving: false) == 2700)
        #expect(rule.timeoutWhereUnknown == 2700)
        let noExits = PresenceRule(rooms: Array(flat.prefix(2)), awayAfterSeconds: 120, awayAfterSecondsInside: 2700)
        #expect(!noExits.hasExits && noExits.timeout(leaving: false) == 120, "no exits: today's one timeout")
    }

    @Test func aTargetSilentInTheBedroomStaysHomeForTheInsideTimeout() async {
        let (clock, source, observer) = Self.flatSource()
        source.update([fix("phone", 2, room: "bedroom")], madeAt: clock)
        #expect(source.locations["phone"]?.presence == .home && source.locations["phone"]?.silentForSeconds == nil)
        // The engine holds the target for a while (last known fixes), then stops; the phone sleeps for 40 minutes.
        clock.advance(by: 5)
        source.update([fix("phone", 2, room: "bedroom", lastKnown: true)], madeAt: clock)
        #expect(source.locations["phone"]?.silentForSeconds == 5)
        for _ in 0..<40 {
            clock.advance(by: 60)
            #expect(source.expireStale() == [])
        }
        #expect(source.locations["phone"]?.presence == .home)
        #expect(source.locations["phone"]?.silentForSeconds == 2405, "silentFor brought up to now by the sweep")
        // Heard again: still home, never away.
        source.update([fix("phone", 2, room: "bedroom")], madeAt: clock)
        #expect(source.locations["phone"]?.silentForSeconds == nil)
        clock.advance(by: 2699)
        source.expireStale()
        #expect(source.locations["phone"]?.presence == .home)
        clock.advance(by: 1)
        source.expireStale()
        #expect(source.locations["phone"]?.presence == .notHome, "after the inside timeout it reads not_home")
        let log = await observer.waitFor(6)
        #expect(log.suffix(2) == ["updated phone@2", "rooms phone:bedroom>-@2405"], "\(log)")
    }

    @Test func aTargetSilentAtTheDoorLeavesAfterTheAwayTimeoutAndIsDeletedLater() async {
        let (clock, source, observer) = Self.flatSource()
        // Walks from the bedroom through the hall to the porch; last fixed in the hall 1 m from the porch, 4 s
        // after it was in the porch's reach.
        source.update([fix("alice", 2, room: "bedroom")], madeAt: clock)
        clock.advance(by: 3)
        source.update([fix("alice", 10.5, room: "porch")], madeAt: clock)
        clock.advance(by: 4)
        source.update([fix("alice", 6, room: "hall")], madeAt: clock)
        clock.advance(by: 119)
        source.expireStale()
        #expect(source.locations["alice"]?.presence == .home)
        clock.advance(by: 1)
        source.expireStale()
        let away = source.locations["alice"]
        #expect(away?.presence == .notHome && away?.lastKnown == true && away?.room == nil)
        #expect(away?.silentForSeconds == 120)
        // The engine's last-known fixes after that (a holdover longer than the timeout) stay not_home, in no room.
        source.update([fix("alice", 6, room: "hall", lastKnown: true)], madeAt: clock)
        #expect(source.locations["alice"]?.presence == .notHome && source.locations["alice"]?.room == nil)
        clock.advance(by: 60)
        #expect(source.expireStale() == [])
        clock.advance(by: 1)
        #expect(source.expireStale() == ["alice"], "deleted deleteAfterSeconds after it went not_home")
        let log = await observer.waitFor(9)
        #expect(log.suffix(4) == ["updated alice@6", "rooms alice:hall>-@7", "updated alice@6", "deleted alice"],
                "\(log)")
    }

    /// A last fix by the porch's wall with a fifth of its mass in the porch: a walker who was at walking speed in
    /// the last 10 s left (their fixes trail them); someone sitting there did not.
    @Test func aFifthInThePorchIsADepartureOnlyForAWalker() {
        for walking in [true, false] {
            let (clock, source, _) = Self.flatSource()
            // Heard for a while first: a track's first seconds are no walk (`PresenceRule.settlingSeconds`).
            source.update([fix("t", 4, room: "hall")], madeAt: clock)
            clock.advance(by: 30)
            // Two fixes at walking speed: one alone is a jump of the fixes (`PresenceRule.walkingSpeed`). Who sits
            // there was fixed there.
            for x in walking ? [5.0, 7.0] : [9.6, 9.6] {
                var before = fix("t", x, room: "hall")
                before.speedMetersPerSecond = walking ? 1.0 : 0.1
                source.update([before], madeAt: clock)
                clock.advance(by: 2)
            }
            var last = fix("t", 9.6, room: "hall")
            last.horizontalAccuracyMeters = 3
            last.speedMetersPerSecond = walking ? 0.4 : 0.1
            source.update([last], madeAt: clock)
            clock.advance(by: 120)
            source.expireStale()
            #expect(source.locations["t"]?.presence == (walking ? .notHome : .home), "walking: \(walking)")
        }
    }

    /// One fix strays into the porch's reach, and the next ones are back in the bedroom before the phone goes
    /// quiet: no departure, the inside timeout applies.
    @Test func aFixBackInsideAfterOneAtTheDoorTakesTheDepartureBack() {
        let (clock, source, _) = Self.flatSource()
        source.update([fix("phone", 2, room: "bedroom")], madeAt: clock)
        clock.advance(by: 2)
        source.update([fix("phone", 10.5, room: "bedroom")], madeAt: clock)
        for _ in 0..<PresenceRule.insideFixesToReturn {
            clock.advance(by: 2)
            source.update([fix("phone", 2, room: "bedroom")], madeAt: clock)
        }
        clock.advance(by: 600)
        source.expireStale()
        #expect(source.locations["phone"]?.presence == .home)
        clock.advance(by: 2100)
        source.expireStale()
        #expect(source.locations["phone"]?.presence == .notHome, "after the inside timeout")
    }

    /// A second at a fix's speed and course takes it nearer the exit or farther from it; a standing fix, or one
    /// in the exit, has no direction.
    @Test func theRuleKnowsWhichWayAFixHeads() {
        let rule = PresenceRule(rooms: flat, awayAfterSeconds: 120, awayAfterSecondsInside: 2700)
        var east = fix("a", 6, room: "hall")
        east.speedMetersPerSecond = 1
        east.courseDegrees = 90
        #expect(abs((rule.exitApproach(east) ?? 0) + 1) < 1e-9, "1 m/s east, straight at the porch")
        #expect(!rule.isTurningBack(east))
        var west = east
        west.courseDegrees = 270
        #expect(abs((rule.exitApproach(west) ?? 0) - 1) < 1e-9 && rule.isTurningBack(west))
        var notItsRoom = west
        notItsRoom.room = "bedroom"
        #expect(!rule.isTurningBack(notItsRoom), "in the hall while the engine holds the bedroom: no turn back")
        var standing = west
        standing.speedMetersPerSecond = 0.1
        #expect(rule.exitApproach(standing) == nil && !rule.isTurningBack(standing), "its course is noise")
        var inPorch = east
        inPorch.x = 11
        #expect(rule.exitApproach(inPorch) == nil)
    }

    /// South of the building, 1.7 m from the porch's corner, with a radius wider than `besideMeters` and less than a
    /// fifth of its mass in the porch: the trailing last fix of a walker heading for the door is beside it; the same
    /// fix of one walking away, or standing, is not (household.py's day: a walker's last fix 0.5 m from the foyer
    /// with a 2.5 m radius, which read as a departure 45 min late).
    @Test func aVagueFixOfAWalkerHeadingForTheDoorIsBesideIt() {
        let rule = PresenceRule(rooms: flat, awayAfterSeconds: 120, awayAfterSecondsInside: 2700)
        var trailing = Location(timestamp: 0, targetID: "a", x: 9.2, y: -1.5, horizontalAccuracyMeters: 2.5,
                                speedMetersPerSecond: 0.6, courseDegrees: 60)
        #expect(!rule.isInside(trailing))
        #expect(rule.isAtExit(trailing, walking: true))
        #expect(!rule.isAtExit(trailing), "not walking: a vague fix is no evidence of the door")
        trailing.courseDegrees = 240
        #expect(!rule.isAtExit(trailing, walking: true), "walking away from the porch")
    }

    /// A stray: one fix jumps into the porch at a run, and the next one is back in the hall, heading away from the
    /// porch, before the phone goes quiet. That turn takes the departure back at once. The same fix still heading
    /// for the porch (a walker's fix trailing them) does not, nor one heading away but in another room than the one
    /// the engine holds (a walker's last fix pushed by noise into the bedroom, the engine still in the hall).
    @Test func aFixTurningBackFromTheDoorTakesTheDepartureBack() {
        let cases: [(x: Double, course: Double, stays: Bool)] = [(7.5, 270, true), (7.5, 90, false), (2.5, 270, false)]
        for (x, course, stays) in cases {
            let (clock, source, _) = Self.flatSource()
            source.update([fix("phone", 7, room: "hall")], madeAt: clock)
            clock.advance(by: 2)
            var stray = fix("phone", 10.5, room: "hall")
            stray.speedMetersPerSecond = 1.65
            stray.courseDegrees = 90
            source.update([stray], madeAt: clock)
            clock.advance(by: 2)
            var back = fix("phone", x, room: "hall")
            back.speedMetersPerSecond = 0.34
            back.courseDegrees = course
            source.update([back], madeAt: clock)
            clock.advance(by: 120)
            source.expireStale()
            #expect(source.locations["phone"]?.presence == (stays ? .home : .notHome), "x \(x), course \(course)")
        }
    }

    @Test func aVenueWithoutExitsKeepsOneTimeoutAndASourceWithoutARuleKeepsItsOldExpiry() {
        let clock = ManualClock(start: 0)
        let source = LocationSource(id: "tags", deleteAfterSeconds: 60, clock: clock,
                                    presence: PresenceRule(rooms: Array(flat.prefix(2)), awayAfterSeconds: 120))
        source.update([fix("phone", 2, room: "bedroom")], madeAt: clock)
        clock.advance(by: 120)
        source.expireStale()
        #expect(source.locations["phone"]?.presence == .notHome)

        let plain = LocationSource(id: "tags", deleteAfterSeconds: 60, clock: clock)
        plain.update([fix("phone", 2, room: "bedroom")])
        #expect(plain.locations["phone"]?.presence == nil)
        clock.advance(by: 61)
        #expect(plain.expireStale() == ["phone"])
    }

    /// A walker who closed on the door over the last seconds left, wherever the last fix fell: here inside the hall,
    /// 1.2 m short of the porch, slowing with the filter (the household mornings' late departures). Someone who
    /// stood there, or came no nearer, did not.
    @Test func aWalkerClosingOnTheDoorLeftWhereverItsLastFixFell() {
        for (name, start, speed) in [("closing", 3.0, 1.0), ("standing", 8.8, 0.1), ("walking at it", 8.8, 1.0)] {
            let (clock, source, _) = Self.flatSource()
            source.update([fix("t", start, room: "hall")], madeAt: clock)
            clock.advance(by: 30)
            var x = start
            for _ in 0..<5 {
                var step = fix("t", x, room: "hall")
                step.speedMetersPerSecond = speed
                step.courseDegrees = 90
                source.update([step], madeAt: clock)
                clock.advance(by: 1.5)
                x = min(8.8, x + 1.5)
            }
            var last = fix("t", 8.8, room: "hall")
            last.speedMetersPerSecond = 0.1
            source.update([last], madeAt: clock)
            #expect(!PresenceRule(rooms: flat).isAtExit(last, walking: true), "not at the door by position alone")
            clock.advance(by: 120)
            source.expireStale()
            #expect(source.locations["t"]?.presence == (name == "closing" ? .notHome : .home), "\(name)")
        }
    }

    /// The same walk as the closing walker's above, made by a solver that then stalled: its last 9 s of fixes reach
    /// the source together, 6 s late. The walk is judged on the fixes' own times and reads as a departure; the silence
    /// counts from when the last one arrived. (By arrival times the walker closed on the door over 0.1 s, which is no
    /// approach: the household morning's departures read 45 min late so when the gateway was busy.)
    @Test func aWalkDeliveredLateAndTogetherIsJudgedOnItsOwnTimes() {
        let (clock, source, _) = Self.flatSource()
        source.update([fix("t", 3, room: "hall")], madeAt: clock)
        clock.advance(by: 30)
        var made: [Location] = []
        for (k, x) in [3.0, 4.5, 6.0, 7.5, 8.8].enumerated() {
            var step = fix("t", x, room: "hall")
            step.timestamp = clock.now() + 1.5 * Double(k)
            step.speedMetersPerSecond = 1.0
            step.courseDegrees = 90
            made.append(step)
        }
        var last = fix("t", 8.8, room: "hall")
        last.timestamp = clock.now() + 9
        last.speedMetersPerSecond = 0.1
        made.append(last)
        clock.advance(by: 15)
        for location in made {
            source.update([location])
            clock.advance(by: 0.02)
        }
        let arrived = clock.now() - 0.02
        clock.advance(by: 119.9 - 0.02)
        source.expireStale()
        #expect(source.locations["t"]?.presence == .home, "120 s from the last arrival, not from when it was made")
        clock.advance(by: arrived + 120 - clock.now())
        source.expireStale()
        #expect(source.locations["t"]?.presence == .notHome)
    }

    /// A walker whose last reports before the door were lost (the body between the phone and the receivers, a busy
    /// solver): its last fix stops short of the porch, further than `besideMeters`. At the rate it closed it would
    /// have reached the porch within `reachSeconds`, and it left; a walker stopped a metre further than that did not.
    @Test func aWalkerLastFixedShortOfTheDoorLeftWhenItWouldHaveReachedItInTime() {
        let rule = PresenceRule(rooms: flat)
        let speed = 0.8
        let reach = speed * rule.reachSeconds
        #expect(reach > rule.besideMeters + 0.5, "the reach goes beyond 'beside'")
        for (name, short) in [("within reach", (rule.besideMeters + reach) / 2), ("beyond it", reach + 1)] {
            let (clock, source, _) = Self.flatSource()
            let end = 10 - short
            source.update([fix("t", end - 4.5 * speed, room: "hall")], madeAt: clock)
            clock.advance(by: 30)
            for k in 0..<4 {
                var step = fix("t", end - speed * 1.5 * Double(3 - k), room: "hall")
                step.speedMetersPerSecond = speed
                step.courseDegrees = 90
                source.update([step], madeAt: clock)
                if k < 3 { clock.advance(by: 1.5) }
            }
            clock.advance(by: 120)
            source.expireStale()
            #expect(source.locations["t"]?.presence == (name == "within reach" ? .notHome : .home), "\(name)")
        }
    }

    /// A target's first fixes converge on it from the middle of the anchors, fast: a sleeper beside the porch whose
    /// first fixes close on it, and whose phone then goes quiet, is no walker leaving.
    @Test func aNewTrackClosingOnTheDoorIsNoDeparture() {
        let (clock, source, _) = Self.flatSource()
        for x in [3.0, 5.0, 7.0, 8.8] {
            var step = fix("t", x, room: "hall")
            step.speedMetersPerSecond = 1.2
            step.courseDegrees = 90
            source.update([step], madeAt: clock)
            clock.advance(by: 1.5)
        }
        clock.advance(by: 600)
        source.expireStale()
        #expect(source.locations["t"]?.presence == .home)
    }

    /// One fix that jumps metres towards the door makes the filter answer with one fix at walking speed: a sleeper in
    /// the hall, still for a minute, whose phone goes quiet right after such a fix did not walk out (the household
    /// morning's sleeper whose one fix jumped 4.5 m into the foyer at 1.44 m/s). Two such fixes are a walk.
    @Test func oneFixAtWalkingSpeedIsAJumpNotAWalk() {
        let rule = PresenceRule(rooms: flat)
        for (name, fastFixes) in [("a jump", 1), ("a walk", 2)] {
            let (clock, source, _) = Self.flatSource()
            for _ in 0..<30 {
                var still = fix("t", 6, room: "hall")
                still.speedMetersPerSecond = 0.05
                source.update([still], madeAt: clock)
                clock.advance(by: 2)
            }
            for k in 0..<fastFixes {
                var step = fix("t", 9.5 - 2.0 * Double(fastFixes - 1 - k), room: "hall")
                step.horizontalAccuracyMeters = 2.6
                step.speedMetersPerSecond = 1.4
                step.courseDegrees = 90
                #expect(rule.isAtExit(step, walking: true) == (k == fastFixes - 1) && !rule.isAtExit(step),
                        "at the door only for a walker")
                source.update([step], madeAt: clock)
                clock.advance(by: 2)
            }
            clock.advance(by: 120)
            source.expireStale()
            #expect(source.locations["t"]?.presence == (name == "a walk" ? .notHome : .home), "\(name)")
        }
    }

    /// A phone heard again as its owner walks off gives the filter a fresh start, and its speed lags: the fixes that
    /// pass through the hall to the porch are a walk at any filter speed. The same last fixes reached in one jump from
    /// where the target stood are not (`PresenceRule.passesTowardExit`).
    @Test func aWalkTheFilterCalledSlowIsReadFromItsFixes() {
        let rule = PresenceRule(rooms: flat)
        for (name, path) in [("a walk", [4.5, 6.0, 7.5, 9.0]), ("a jump", [9.0, 9.1])] {
            let (clock, source, _) = Self.flatSource()
            let start = name == "a walk" ? 2.0 : 6.0
            for _ in 0..<15 {
                var still = fix("t", start, room: name == "a walk" ? "bedroom" : "hall")
                still.speedMetersPerSecond = 0.05
                source.update([still], madeAt: clock)
                clock.advance(by: 2)
            }
            for x in path {
                var step = fix("t", x, room: "hall")
                step.speedMetersPerSecond = 0.3
                step.courseDegrees = 90
                #expect(!rule.isAtExit(step, walking: true), "not at the door by position alone")
                source.update([step], madeAt: clock)
                clock.advance(by: 1.5)
            }
            clock.advance(by: 120)
            source.expireStale()
            #expect(source.locations["t"]?.presence == (name == "a walk" ? .notHome : .home), "\(name)")
        }
    }
}
