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
}
