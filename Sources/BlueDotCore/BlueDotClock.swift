/// The one clock of BlueDot: where every module reads the time and waits. `SystemClock` in production,
/// `ManualClock` in tests, which advance it instead of sleeping (swift-nio's `EmbeddedEventLoop.advanceTime(by:)`).
///
/// Times are seconds on a fixed origin: Unix time for `SystemClock`, the unit of observation times, sighting
/// stamps and `Location.timestamp` alike. Scanner deadlines and backoff, the engine's release ticks, replay pacing
/// and the display's staleness all wait on it.
public protocol BlueDotClock: Sendable {
    /// The current time in seconds.
    func now() -> Double
    /// Suspends until `now() >= deadline`; throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: Double) async throws
    /// Blocks the calling thread until `now() >= deadline` (true) or `alarm` rings (false). For the few inputs
    /// that run on a thread of their own (a paced replay): one thread wake-up per wait, where a task's sleep costs
    /// a timer thread's and then a pool thread's. Never call it from a task of Swift's cooperative pool.
    func wait(until deadline: Double, or alarm: ThreadAlarm) -> Bool
}

extension BlueDotClock {
    /// Suspends for `seconds` from now.
    public func sleep(seconds: Double) async throws {
        try await sleep(until: now() + seconds)
    }

    /// Suspends for `duration` from now.
    public func sleep(for duration: Duration) async throws {
        let (s, attoseconds) = duration.components
        try await sleep(until: now() + Double(s) + Double(attoseconds) * 1e-18)
    }

    /// For a clock that runs at the wall clock's pace (an offset, a shifted origin): waits the difference on the
    /// wall clock, then again for whatever is left. Clocks that move otherwise implement their own.
    public func wait(until deadline: Double, or alarm: ThreadAlarm) -> Bool {
        while true {
            let remaining = deadline - now()
            if alarm.hasRung { return false }
            if remaining <= 0 { return true }
            guard alarm.block(wallClockDeadline: SystemClock().now() + remaining) else { return false }
        }
    }
}
