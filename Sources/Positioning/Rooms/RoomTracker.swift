import BlueDotCore
/// When a target counts as in a room: hysteresis on the room probabilities of `RoomMap`, so that a tag standing
/// by a wall, whose probabilities hover near one half, does not flap between the rooms.
///
/// The places a target can be are the venue's rooms and "no room" (the probability mass outside every room).
/// The target moves from its place to the most likely one when that place is more likely than its own and either
/// reaches `enterProbability` (it clearly entered) or its own place has fallen below `leaveProbability` (it
/// clearly left), and the move has held for `dwellSeconds` of fix time. Between the two thresholds nothing changes.
/// A target's first fix puts it in its most likely place at once (there is no earlier state to flap from).
///
/// A target that stands still (the engine's filter speed, averaged over about 2 s, has stayed below `stillSpeed` for
/// `stillSeconds`) in a room it has been confirmed in while still (its probability there reached
/// `stillConfirmProbability`) is not changing rooms, so a move then needs much stronger evidence: `stationaryEnterProbability` / `stationaryLeaveProbability`, held for
/// `stationaryDwellSeconds`. A person sitting by a wall, whose fixes wander across it, keeps their room; one who
/// gets up moves the filter, and the ordinary rules apply again. A room never confirmed (the first fixes of a
/// target, before its filter has converged) is not held harder.
public struct RoomHysteresis: Sendable, Hashable {
    /// Probability a place must reach (and hold for the dwell time) to be entered.
    public var enterProbability: Double
    /// Probability below which the current place, held so for the dwell time, is left for a more likely one.
    public var leaveProbability: Double
    /// How long, seconds of fix time, a move must hold before it happens.
    public var dwellSeconds: Double
    /// A target whose averaged filter speed stays below this (m/s; walking is over 1) ...
    public var stillSpeed: Double
    /// ... for this long (seconds of fix time) stands still.
    public var stillSeconds: Double
    /// `enterProbability` while the target stands still.
    public var stationaryEnterProbability: Double
    /// `leaveProbability` while the target stands still.
    public var stationaryLeaveProbability: Double
    /// `dwellSeconds` while the target stands still.
    public var stationaryDwellSeconds: Double
    /// The probability a standing target's room must reach once before the stationary rules hold it.
    public var stillConfirmProbability: Double

    /// Creates the rules; the defaults are the engine's (`docs/positioning.md`, "Rooms").
    public init(enterProbability: Double = 0.6, leaveProbability: Double = 0.3, dwellSeconds: Double = 2,
                stillSpeed: Double = 0.5, stillSeconds: Double = 5, stationaryEnterProbability: Double = 0.85,
                stationaryLeaveProbability: Double = 0.1, stationaryDwellSeconds: Double = 6,
                stillConfirmProbability: Double = 0.4) {
        self.enterProbability = enterProbability
        self.leaveProbability = leaveProbability
        self.dwellSeconds = dwellSeconds
        self.stillSpeed = stillSpeed
        self.stillSeconds = stillSeconds
        self.stationaryEnterProbability = stationaryEnterProbability
        self.stationaryLeaveProbability = stationaryLeaveProbability
        self.stationaryDwellSeconds = stationaryDwellSeconds
        self.stillConfirmProbability = stillConfirmProbability
    }

    /// The rules as they were before a standing target was held harder: the same for moving and still.
    public static let ignoringStillness = RoomHysteresis(
        stationaryEnterProbability: 0.6, stationaryLeaveProbability: 0.3, stationaryDwellSeconds: 2)

    /// No hysteresis: the most likely place at every fix (for comparison).
    public static let none = RoomHysteresis(enterProbability: 0, leaveProbability: 0, dwellSeconds: 0,
                                            stationaryEnterProbability: 0, stationaryLeaveProbability: 0,
                                            stationaryDwellSeconds: 0)
}

/// One target's room state under `RoomHysteresis`.
public struct RoomTracker: Sendable, Hashable {
    /// The room the target is in (index into `RoomMap.shapes`), if any.
    public private(set) var current: Int?
    private var started = false
    /// The move waiting for its dwell time: to a room, or (`.some(nil)`) out of every room; and since when.
    private var pending: Int??
    private var pendingSince = 0.0
    /// Since when the target's averaged filter speed has been below the still speed.
    private var slowSince: Double?
    /// The filter speed averaged over about `speedAveragingSeconds`, and the time of the last speed.
    private var averageSpeed: Double?
    private var speedTime = 0.0
    /// The averaging time of the filter speed: a standing target's filter jitters, a walk lasts.
    static let speedAveragingSeconds = 2.0
    /// Whether the current room reached the confirm probability while the target stood still.
    private var confirmed = false

    /// A target not yet seen.
    public init() {}

    /// Whether it has taken a fix.
    public var hasStarted: Bool { started }

    /// Whether the target stands still at time `t` (after `update` with its speed).
    public func standsStill(at t: Double, rules: RoomHysteresis) -> Bool {
        slowSince.map { t - $0 >= rules.stillSeconds } ?? false
    }

    /// Takes the room probabilities of a fix at time `t` (with the filter's speed, m/s, when known) and returns the
    /// target's room and the probability to report: the current room's, or with no room the most likely room's (0
    /// when none has any).
    public mutating func update(_ probabilities: [(room: Int, p: Double)], t: Double, speed: Double? = nil,
                                rules: RoomHysteresis) -> (room: Int?, probability: Double) {
        if let speed {
            let weight = averageSpeed == nil ? 1 : min(1, max(0, t - speedTime) / Self.speedAveragingSeconds)
            averageSpeed = (averageSpeed ?? speed) + weight * (speed - (averageSpeed ?? speed))
            speedTime = t
        }
        if let average = averageSpeed, speed != nil, average < rules.stillSpeed {
            if slowSince == nil { slowSince = t }
        } else {
            slowSince = nil
        }
        let standing = standsStill(at: t, rules: rules)
        if !standing { confirmed = false }
        let still = standing && confirmed
        let enter = still ? rules.stationaryEnterProbability : rules.enterProbability
        let leave = still ? rules.stationaryLeaveProbability : rules.leaveProbability
        let dwell = still ? rules.stationaryDwellSeconds : rules.dwellSeconds
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
        } else if best != current, p(best) > p(current), p(best) >= enter || p(current) < leave {
            if pending != .some(best) {
                pending = .some(best)
                pendingSince = t
            }
            if t - pendingSince >= dwell {
                current = best
                pending = nil
                confirmed = false
            }
        } else {
            pending = nil
        }
        if standing && p(current) >= rules.stillConfirmProbability { confirmed = true }
        return (current, current.map { p($0) } ?? bestRoom?.p ?? 0)
    }
}

extension RoomMap {
    /// Sets `fix.room` (the room's id) and `fix.roomProbability` from the fix's position and a 68% radius (the
    /// fix's own when none is given), moving `tracker` on by the rules; `speed` is the filter's (m/s), which tells
    /// a target standing still. A last-known fix keeps the tracker's room. Does nothing when there are no rooms.
    public func assign(_ fix: inout Location, tracker: inout RoomTracker, rules: RoomHysteresis,
                       radius68: Double? = nil, speed: Double? = nil) {
        guard !isEmpty else { return }
        let probabilities = probabilities(x: fix.x, y: fix.y, radius68: radius68 ?? fix.horizontalAccuracyMeters,
                                          floor: fix.floor)
        if fix.lastKnown, tracker.hasStarted {
            // A silence is no evidence of a move: while the target is unheard its room holds, however the radius of
            // its last-known fix grows.
            fix.room = tracker.current.map { shapes[$0].id }
            let current = tracker.current
            fix.roomProbability = current.map { c in probabilities.first { $0.room == c }?.p ?? 0 }
                ?? probabilities.map(\.p).max() ?? 0
            return
        }
        let (room, p) = tracker.update(probabilities, t: fix.timestamp, speed: speed, rules: rules)
        fix.room = room.map { shapes[$0].id }
        fix.roomProbability = p
    }
}
