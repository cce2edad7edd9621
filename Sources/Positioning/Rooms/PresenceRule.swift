import BlueDotCore
import Glibc

/// When a silent target has left: the one rule behind every output's `home` / `not_home` (`Location.presence`),
/// applied by the location source (LocationBus) to each target's last current fix.
///
/// Phones and watches stop advertising for minutes when they are idle (issue 42 cites the field's threads), so the
/// silence alone cannot say that someone left. Where it began can: a target that fell silent in or beside an exit
/// room (`Venue.Room.exit`: a front door, a porch, a garage) left, and reads `not_home` after `awayAfterSeconds`;
/// one that fell silent anywhere else is asleep on a nightstand, and stays `home` for `awayAfterSecondsInside`
/// before it reads `not_home`. A venue without exits cannot tell the two apart, and uses `awayAfterSeconds`
/// everywhere (BlueDot's behaviour before exits).
///
/// "In" is the fix's room (the engine's, with hysteresis), or a fifth of its probability inside the exit (`RoomMap`'s
/// cubature over the fix's 68% radius) while the target walks (two fixes at `walkingSpeed` within the last
/// `walkingMemorySeconds`) and no other room holds half, or, while it stands, when no other room holds more; "beside"
/// is a fix that knows where it is (a radius of at most `besideMeters`) within `besideMeters` of the exit's outline,
/// and is not inside another room (`isInside`: `elsewhereProbability` of its mass in a room that is not an exit). A
/// fix whose radius spans half the house is no evidence of a door, and the first fixes of a solver just started
/// (which sit at the middle of the anchors) are such fixes; nor is a bed behind the porch's wall (the household day,
/// `Tools/virtual-world/household.py`, had a bedroom beside its foyer). "Began" is the last `exitMemorySeconds` of
/// current fixes before the silence: a person who walks through the porch and out of range is often last fixed in the
/// hall. Two current fixes inside another room after the one at the exit take it back (`isInside`,
/// `insideFixesToReturn`): over a simulated day, a phone's fixes strayed to the foyer for one fix, once every few
/// hours, before a quiet spell in the bedroom or the living room (`Tools/virtual-world/household.py`). One such fix
/// does when it turns back (`isTurningBack`): it moves away from the exits, inside the room the engine still holds it
/// in (the room's lag and hysteresis hold the room a stray came from). On those days a sleeper's fix jumped 4 m into
/// the foyer at 1.65 m/s and came back into her bedroom 2 s later heading away from it, at 0.34 m/s, before the phone
/// went quiet for 3.5 min; while a walker's fixes that trail them after the door still head for it, or land in another
/// room than the engine's (a walker's last fix fell 0.3 m inside the living room, heading away from the foyer by noise,
/// while the engine held the hall). A walker whose fixes of the last seconds closed on an exit is at it wherever its
/// last fix fell (`isClosingOnExit`, judged by the location source over the target's recent fixes; a walker by its
/// speed, or by fixes that pass towards the exit, `passesTowardExit`), and the first `settlingSeconds` of a target's
/// fixes are no walk.
public struct PresenceRule: Sendable {
    /// Seconds of silence after which a target that fell silent in or beside an exit is `not_home` (every target,
    /// in a venue without exits).
    public var awayAfterSeconds: Double
    /// Seconds of silence after which a target that fell silent elsewhere is `not_home`.
    public var awayAfterSecondsInside: Double
    /// A fix with a radius of at most this, this close to an exit room's outline (metres), is beside it.
    public var besideMeters: Double
    /// A fix with this much of its probability inside an exit room is in it while its target walks; a standing
    /// one needs no more in any other room. On a simulated day (`Tools/virtual-world/household.py`) a person sitting
    /// 1.5 m from the foyer's wall had 20-22% of two fixes' mass in it and read `not_home` while at home; and a
    /// walker's fixes trail them by 2-3 m, so that the last one before the door had a fifth of its mass in the foyer
    /// and more in the hall and the living room beside it: the most likely room alone left a departure 45 min late.
    public static let exitProbability = 0.2
    /// A target with two current fixes at this filter speed (m/s) or faster within `walkingMemorySeconds` of each
    /// other, the later one within the last `walkingMemorySeconds`, walks: the room hysteresis's threshold for
    /// standing still. The household day's walkers' last fixes before the door read 0.34-0.49 m/s (the filter
    /// slowing as the reports stop), their fixes a few seconds earlier 0.7-1.3. One such fix alone is no walk: the
    /// filter answers a fix that jumps metres with one fix at walking speed. On a household morning run here, a
    /// sleeper still in her bedroom for minutes had one fix jump 4.5 m into the foyer at 1.44 m/s, and her fixes were
    /// back in the bedroom 5 s later; had her phone gone quiet between, that one fix would have read as a walk out
    /// of the door (CI's morning read a sleeper `not_home` 2 min after her phone went quiet, at 07:30:30; its fixes
    /// were not kept). Over three mornings' fixes (`bluedot-bench presence --exposure`), the spans of fixes after
    /// which a silence would read as a departure away from any door went from 12 to 6 with the second fix required
    /// (7 with `passesTowardExit` as well), and all six departures still read at the door.
    public static let walkingSpeed = 0.5
    /// See `walkingSpeed`, seconds. 10: CI's household morning under AddressSanitizer (fewer fixes) once had a
    /// walker's last 0.5 m/s fix 6 s before her last one, at 0.45 m/s by the foyer, and read her departure 45 min
    /// late with 5 s.
    public static let walkingMemorySeconds = 10.0
    /// A fix moving at least this fast (m/s) has a direction (`isTurningBack`); a standing target's filter speed is
    /// under 0.1 m/s on the household day, and its course is noise.
    public static let turningSpeed = 0.2
    /// A walker whose fixes over the last `exitMemorySeconds` closed on an exit at this speed (m/s) or faster, and
    /// whose last fix lies within `besideMeters` of it (or `reachSeconds` from it at that rate), is at the exit
    /// (`isClosingOnExit`), wherever that fix fell: the filter trails a walker by metres, and the reports stop when
    /// the phone leaves the receivers' range, so a departing walker's last fix is often in the hall or the room beside
    /// the porch, slowing as the filter does.
    /// On the household mornings the last fixes of departures that read late (45 min, or never within the run) lay
    /// 0-1 m from the foyer, after closing on it at 0.6-3.5 m/s over the seconds before.
    public static let approachSpeed = 0.3
    /// The shortest span of fixes (seconds) over which `approachSpeed` is measured: a single step of the filter's
    /// noise is no approach.
    public static let approachBaselineSeconds = 3.0
    /// Fixes with a radius over this (metres) are left out of the approach: the first fix of a target heard again
    /// after a quiet spell (6 m on the household mornings) sits at the middle of the anchors.
    public static let approachRadiusMeters = 4.0
    /// A target's first fixes this long (seconds) are no walk: a solver's first fixes of a target converge from the
    /// middle of the anchors, fast, and a sleeper's beside the porch converge towards it.
    public static let settlingSeconds = 20.0
    /// A fix with this much of its mass in one room that is not an exit is inside (`isInside`).
    public static let elsewhereProbability = 0.5
    /// This many current fixes inside after the last one at an exit take the departure back: one trailing fix in
    /// the hall, behind a walker already in the porch, does not.
    public static let insideFixesToReturn = 2
    /// A target fixed in or beside an exit this long before it fell silent (seconds) left through it.
    public var exitMemorySeconds: Double
    /// A walker closing on an exit (`isClosingOnExit`) whose last fix would reach the exit within this many seconds
    /// at the rate it closed is at it, though further from it than `besideMeters`: the phone's last reports before
    /// the door are the likeliest lost (the body between it and the receivers, a busy solver).
    public var reachSeconds = Self.defaultReachSeconds
    /// The default of `reachSeconds`: 5 s. Over four household mornings (`Tools/virtual-world/household.py`, seeds
    /// 1-4, eight departures) judged again without each walk's last seconds of fixes (`bluedot-bench presence
    /// --lose-seconds K`), the departures still read at the door with 3 s lost were 6 of 8 without a reach and 7 with
    /// 5 s, with 4 s lost 0 and 3; no false `not_home` on those mornings nor on a whole day (seed 1). A reach of 8 s
    /// kept 8 and 5, but from last fixes in the kitchen, 5 m from the foyer. CI's morning once read a departure 45
    /// min late whose last fixes lay in the hall 2-4 m from the foyer, closing at 0.5-0.7 m/s.
    public static let defaultReachSeconds = 5.0
    /// The exit rooms, ready for point tests.
    private let exits: RoomMap
    /// The other rooms.
    private let inside: RoomMap

    /// The default of `awayAfterSeconds`: 120 s, Home Assistant's `consider_home` default is 180 s and Bermuda's
    /// `devtracker_nothome_timeout` 30 s; at an exit, a short wait is what the user wants.
    public static let defaultAwayAfterSeconds = 120.0
    /// The default of `awayAfterSecondsInside`: 45 minutes, over twice the longest silence of an idle iPhone quoted in
    /// the field's threads (20 min 24 s between sightings at night, room-assistant issue #309; "15 minutes at a time",
    /// home-assistant/core issue #123036; Bermuda's "iOS Transmit Outages" label, issues #375 and #385).
    public static let defaultAwayAfterSecondsInside = 2700.0

    /// The rule for `venue`'s exit rooms.
    public init(venue: Venue, awayAfterSeconds: Double = Self.defaultAwayAfterSeconds,
                awayAfterSecondsInside: Double = Self.defaultAwayAfterSecondsInside, besideMeters: Double = 2,
                exitMemorySeconds: Double = 10) {
        self.init(rooms: venue.rooms, bounds: venue.bounds, awayAfterSeconds: awayAfterSeconds,
                  awayAfterSecondsInside: awayAfterSecondsInside, besideMeters: besideMeters,
                  exitMemorySeconds: exitMemorySeconds)
    }

    /// The rule for the exits among `rooms` (none: one timeout everywhere), within `bounds` when given.
    public init(rooms: [Venue.Room] = [], bounds: Venue.Bounds? = nil,
                awayAfterSeconds: Double = Self.defaultAwayAfterSeconds,
                awayAfterSecondsInside: Double = Self.defaultAwayAfterSecondsInside, besideMeters: Double = 2,
                exitMemorySeconds: Double = 10) {
        self.awayAfterSeconds = max(0, awayAfterSeconds)
        self.awayAfterSecondsInside = max(0, awayAfterSecondsInside)
        self.besideMeters = max(0, besideMeters)
        self.exitMemorySeconds = max(0, exitMemorySeconds)
        exits = RoomMap(rooms: rooms.filter(\.exit), bounds: bounds)
        inside = RoomMap(rooms: rooms.filter { !$0.exit }, bounds: bounds)
    }

    /// True when `fix`'s own position (not its room, which hysteresis and the room's lag hold back) has at least
    /// `elsewhereProbability` of its mass in one room that is not an exit: a current fix that says the target is
    /// still inside, after any fix at an exit before it.
    public func isInside(_ fix: Location) -> Bool {
        inside.probabilities(x: fix.x, y: fix.y, radius68: fix.horizontalAccuracyMeters, floor: fix.floor)
            .contains { $0.p >= Self.elsewhereProbability }
    }

    /// True when `fix` moves away from the exit nearest to it (`exitApproach` is positive) and has
    /// `elsewhereProbability` of its mass in its own room (`Location.room`, the engine's, which lags and holds).
    public func isTurningBack(_ fix: Location) -> Bool {
        guard (exitApproach(fix) ?? 0) > 0, let room = fix.room else { return false }
        return inside.probabilities(x: fix.x, y: fix.y, radius68: fix.horizontalAccuracyMeters, floor: fix.floor)
            .contains { inside.shapes[$0.room].id == room && $0.p >= Self.elsewhereProbability }
    }

    /// How much a second at `fix`'s speed and course changes its distance to the outline of the exit nearest to it
    /// (metres; negative: it heads for the exit), on its floor (any floor when the fix has none). Nil while it moves
    /// slower than `turningSpeed`, has no course, or stands in the exit.
    public func exitApproach(_ fix: Location) -> Double? {
        guard let speed = fix.speedMetersPerSecond, speed >= Self.turningSpeed, let course = fix.courseDegrees else {
            return nil
        }
        guard let (nearest, now) = nearestExit(to: fix), now > 0 else { return nil }
        // Course: degrees clockwise from north (+y), as `Location.courseDegrees`.
        let radians = course * .pi / 180
        return nearest.distance(x: fix.x + speed * sin(radians), y: fix.y + speed * cos(radians)) - now
    }

    /// A walk to an exit passes the ground between: three of its fixes, in time order, each at least this much
    /// nearer the exit (metres) than the one before (`passesTowardExit`). A jump of the fixes does not: the
    /// household morning's sleeper whose fixes jumped 4.5 m into the foyer went from 2.2-2.6 m of it to inside it in
    /// one fix. The filter's fixes of one standing still scatter by about a metre.
    public static let progressMeters = 1.0

    /// True when `track` (positions oldest first) passed through the ground towards the exit nearest its last
    /// position (on its floor): three of its positions, in time order, each `progressMeters` nearer that exit than the
    /// one before. What a walk to the door shows when the filter's speed does not: on a household day a phone heard
    /// again in the kitchen 11 s before its owner left was fixed 5.5, 4.6, 3.5, 0.2 and 0 m from the foyer, while the
    /// filter, starting again, read 0.1-0.4 m/s, and her departure read 45 min late.
    public func passesTowardExit(_ track: [(at: Double, x: Double, y: Double, floor: Int?)]) -> Bool {
        guard let last = track.last, let (exit, _) = nearestExit(x: last.x, y: last.y, floor: last.floor) else {
            return false
        }
        let distances = track.filter { $0.floor == last.floor }.map { exit.distance(x: $0.x, y: $0.y) }
        guard distances.count >= 3 else { return false }
        // A middle position with one at least a step farther before it and one at least a step nearer after it.
        let step = Self.progressMeters
        var farthestBefore = distances[0]
        for j in 1..<(distances.count - 1) {
            let nearestAfter = distances[(j + 1)...].min() ?? distances[j]
            if farthestBefore - distances[j] >= step, distances[j] - nearestAfter >= step { return true }
            farthestBefore = max(farthestBefore, distances[j])
        }
        return false
    }

    /// True when a target fixed at `earlier` and, `seconds` later, at `fix` closed on the exit nearest to `fix` (on
    /// its floor) at `approachSpeed` or faster, over at least `approachBaselineSeconds`, and `fix` lies within
    /// `besideMeters` of that exit's outline (or in it), or within what that rate covers in `reachSeconds`.
    public func isClosingOnExit(from earlier: (x: Double, y: Double, floor: Int?), seconds: Double, to fix: Location)
        -> Bool
    {
        guard seconds >= Self.approachBaselineSeconds, earlier.floor == fix.floor else { return false }
        guard let (nearest, now) = nearestExit(to: fix) else { return false }
        let rate = (nearest.distance(x: earlier.x, y: earlier.y) - now) / seconds
        return rate >= Self.approachSpeed && (now <= besideMeters || now <= rate * reachSeconds)
    }

    /// The exit room nearest to `fix` on its floor (any floor when the fix has none), and the distance from the fix
    /// to its outline (0 inside it); nil without exits there.
    private func nearestExit(to fix: Location) -> (shape: RoomMap.Shape, distance: Double)? {
        nearestExit(x: fix.x, y: fix.y, floor: fix.floor)
    }

    /// The exit room nearest to a point on `floor` (any floor when nil), and the distance to its outline.
    private func nearestExit(x: Double, y: Double, floor: Int?) -> (shape: RoomMap.Shape, distance: Double)? {
        exits.shapes.filter { floor == nil || $0.floor == floor }
            .map { ($0, $0.distance(x: x, y: y)) }.min { $0.1 < $1.1 }
    }

    /// True when the venue has exit rooms (the two timeouts apply); false: `awayAfterSeconds` everywhere.
    public var hasExits: Bool { !exits.isEmpty }

    /// The ids of the exit rooms.
    public var exitRooms: [String] { exits.shapes.map(\.id) }

    /// True when `fix` is in an exit room (its `room`, or `exitProbability` of its mass: of a `walking` target not
    /// inside another room, or with no more in another room) or beside one on its floor (any floor when the fix has
    /// none) without being inside another room: with a radius of at most `besideMeters`, or of a `walking` target
    /// heading for the exit.
    public func isAtExit(_ fix: Location, walking: Bool = false) -> Bool {
        if let room = fix.room, exits.shapes.contains(where: { $0.id == room }) { return true }
        let radius = fix.horizontalAccuracyMeters
        let atExit = exits.probabilities(x: fix.x, y: fix.y, radius68: radius, floor: fix.floor).map(\.p).max() ?? 0
        let elsewhere = inside.probabilities(x: fix.x, y: fix.y, radius68: radius, floor: fix.floor).map(\.p).max() ?? 0
        let isInside = elsewhere >= Self.elsewhereProbability
        if atExit >= Self.exitProbability, (walking && !isInside) || atExit >= elsewhere { return true }
        guard !isInside else { return false }
        // A walker heading for an exit is beside it however vague its fix: the filter trails a walker by metres.
        let headingOut = walking && (exitApproach(fix) ?? 0) < 0
        guard radius <= besideMeters || headingOut else { return false }
        return exits.shapes.contains { shape in
            if let floor = fix.floor, floor != shape.floor { return false }
            return shape.distance(x: fix.x, y: fix.y) <= besideMeters
        }
    }

    /// Seconds of silence after which a target is `not_home`: `awayAfterSeconds` when it was at an exit when it fell
    /// silent (`leaving`) or the venue has none, else `awayAfterSecondsInside`.
    public func timeout(leaving: Bool) -> Double {
        leaving || !hasExits ? awayAfterSeconds : awayAfterSecondsInside
    }

    /// The timeout for a target whose last place is unknown (expected, but not heard since a start): inside, when
    /// the venue has exits, since a silence that began nowhere known is not a departure.
    public var timeoutWhereUnknown: Double { timeout(leaving: false) }
}
