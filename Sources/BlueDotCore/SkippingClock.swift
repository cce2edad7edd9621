/// A clock for tests on which every sleep returns at once, after moving the time to its deadline: a recording
/// paced by it replays as fast as its consumer takes packets, yet every packet arrives at its recorded time.
/// It remembers every deadline slept until. Unlike `ManualClock`, nothing needs to advance it; use it only where one
/// task sleeps on it at a time (several sleepers would race each other's time forward).
public final class SkippingClock: BlueDotClock {
    private let state: LockedValue<(now: Double, deadlines: [Double])>

    /// Creates a clock reading `start` seconds.
    public init(start: Double = 0) {
        state = LockedValue((start, []))
    }

    /// The current time.
    public func now() -> Double { state.withLock { $0.now } }

    /// Every deadline slept until, in order.
    public var deadlines: [Double] { state.withLock { $0.deadlines } }

    /// Moves the time to `deadline` (never back) and returns.
    public func sleep(until deadline: Double) async throws {
        try Task.checkCancellation()
        state.withLock { s in
            s.deadlines.append(deadline)
            s.now = max(s.now, deadline)
        }
    }

    /// Moves the time to `deadline` (never back) and returns at once, unless the alarm has rung.
    public func wait(until deadline: Double, or alarm: ThreadAlarm) -> Bool {
        if alarm.hasRung { return false }
        state.withLock { s in
            s.deadlines.append(deadline)
            s.now = max(s.now, deadline)
        }
        return true
    }
}
