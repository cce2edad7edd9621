import FoundationEssentials

/// The wall clock: Unix time from `Date`, waits through `ContinuousClock`.
public struct SystemClock: BlueDotClock {
    /// Creates the wall clock.
    public init() {}

    /// Seconds since 1970-01-01 UTC.
    public func now() -> Double {
        Date().timeIntervalSince1970
    }

    /// Sleeps until the deadline passes on the wall clock.
    public func sleep(until deadline: Double) async throws {
        let remaining = deadline - now()
        if remaining > 0 {
            try await Task.sleep(for: .seconds(remaining))
        } else {
            try Task.checkCancellation()
        }
    }

    /// Blocks until the wall clock reaches the deadline or the alarm rings.
    public func wait(until deadline: Double, or alarm: ThreadAlarm) -> Bool {
        while now() < deadline {
            guard alarm.block(wallClockDeadline: deadline) else { return false }
        }
        return !alarm.hasRung
    }
}
