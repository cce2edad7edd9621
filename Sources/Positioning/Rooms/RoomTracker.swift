import BlueDotCore
/// When a target counts as in a room: hysteresis on the room probabilities of `RoomMap`, so that a tag standing
/// by a wall, whose probabilities hover near one half, does not flap between the rooms.
///
/// The places a target can be are the venue's rooms and "no room" (the probability mass outside every room).
/// The target moves from its place to the most likely one when that place is more likely than its own and either
/// reaches `enterProbability` (it clearly entered) or its own place has fallen below `leaveProbability` (it
/// clearly left), and the move has held for `dwellSeconds` of fix time. Between the two thresholds nothing changes.
/// A target's first fix puts it in its most likely place at once (there is no earlier state to flap from).
public struct RoomHysteresis: Sendable, Hashable {
    /// Probability a place must reach (and hold for the dwell time) to be entered.
    public var enterProbability: Double
    /// Probability below which the current place, held so for the dwell time, is left for a more likely one.
    public var leaveProbability: Double
    /// How long, seconds of fix time, a move must hold before it happens.
    public var dwellSeconds: Double

    /// Creates the rules; the defaults are the engine's (`docs/positioning.md`, "Rooms").
    public init(enterProbability: Double = 0.6, leaveProbability: Double = 0.3, dwellSeconds: Double = 2) {
        self.enterProbability = enterProbability
        self.leaveProbability = leaveProbability
        self.dwellSeconds = dwellSeconds
    }

    /// No hysteresis: the most likely place at every fix (for comparison).
    public static let none = RoomHysteresis(enterProbability: 0, leaveProbability: 0, dwellSeconds: 0)
}

/// One target's room state under `RoomHysteresis`.
public struct RoomTracker: Sendable, Hashable {
    /// The room the target is in (index into `RoomMap.shapes`), if any.
    public private(set) var current: Int?
    private var started = false
    /// The move waiting for its dwell time: to a room, or (`.some(nil)`) out of every room; and since when.
    private var pending: Int??
    private var pendingSince = 0.0

    /// A target not yet seen.
    public init() {}

    /// Takes the room probabilities of a fix at time `t` and returns the target's room and the probability to
    /// report: the current room's, or with no room the most likely room's (0 when none has any).
    public mutating func update(_ probabilities: [(room: Int, p: Double)], t: Double,
                                rules: RoomHysteresis) -> (room: Int?, probability: Double) {
        func p(_ place: Int?) -> Double {
            guard let place else { return max(0, 1 - probabilities.reduce(0) { $0 + $1.p }) }
            return probabilities.first { $0.room == place }?.p ?? 0
        }
        let bestRoom = probabilities.max { $0.p < $1.p || ($0.p == $1.p && $0.room > $1.room) }
        // The most likely place: the best room, or no room when the mass outside the rooms is larger.
        let best: Int? = bestRoom.flatMap { $0.p > p(nil) ? $0.room : nil }
        defer { started = true }
        if !started {
            current = best
        } else if best != current, p(best) > p(current),
                  p(best) >= rules.enterProbability || p(current) < rules.leaveProbability {
            if pending != .some(best) {
                pending = .some(best)
                pendingSince = t
            }
            if t - pendingSince >= rules.dwellSeconds {
                current = best
                pending = nil
            }
        } else {
            pending = nil
        }
        return (current, current.map { p($0) } ?? bestRoom?.p ?? 0)
    }
}

extension RoomMap {
    /// Sets `fix.room` (the room's id) and `fix.roomProbability` from the fix's position and a 68% radius (the
    /// fix's own when none is given), moving `tracker` on by the rules. Does nothing when there are no rooms.
    public func assign(_ fix: inout Location, tracker: inout RoomTracker, rules: RoomHysteresis,
                       radius68: Double? = nil) {
        guard !isEmpty else { return }
        let probabilities = probabilities(x: fix.x, y: fix.y, radius68: radius68 ?? fix.horizontalAccuracyMeters,
                                          floor: fix.floor)
        let (room, p) = tracker.update(probabilities, t: fix.timestamp, rules: rules)
        fix.room = room.map { shapes[$0].id }
        fix.roomProbability = p
    }
}
