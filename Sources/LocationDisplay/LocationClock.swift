/// Where display code reads the time and waits: the wall clock in production, `ManualClock` in tests.
///
/// Times are seconds on a fixed origin (Unix time for `SystemLocationClock`), the same unit as
/// `Location.timestamp`.
public protocol LocationClock: Sendable {
    /// The current time in seconds.
    func now() -> Double
    /// Suspends until `now() >= deadline`; throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: Double) async throws
}

extension LocationClock {
    /// Suspends for `seconds` from now.
    public func sleep(seconds: Double) async throws {
        try await sleep(until: now() + seconds)
    }
}
