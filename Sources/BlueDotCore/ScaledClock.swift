import FoundationEssentials

/// The wall clock run fast (or slow) from a fixed instant, for simulations that must cover hours in minutes: it
/// reads `epoch + (wall − epoch) × rate`, and every wait on it takes `1 / rate` of its length on the wall clock.
/// Processes given the same epoch and rate read the same time, so a simulated world and the daemon agree.
public struct ScaledClock: BlueDotClock, Hashable {
    /// How many of its seconds pass in one wall-clock second.
    public let rate: Double
    /// The Unix time at which it reads the wall clock's time.
    public let epoch: Double

    /// A clock reading `epoch + (wall − epoch) × rate`; `rate` must be positive and finite.
    public init(rate: Double, epoch: Double) {
        precondition(rate > 0 && rate.isFinite, "a clock's rate is positive and finite")
        self.rate = rate
        self.epoch = epoch
    }

    /// The scaled time of a wall-clock time.
    public func scaled(wall: Double) -> Double {
        epoch + (wall - epoch) * rate
    }

    /// The wall-clock time at which it reads `time`.
    public func wall(at time: Double) -> Double {
        epoch + (time - epoch) / rate
    }

    /// Its current time.
    public func now() -> Double {
        scaled(wall: SystemClock().now())
    }

    /// Sleeps on the wall clock until it reads `deadline`.
    public func sleep(until deadline: Double) async throws {
        try await SystemClock().sleep(until: wall(at: deadline))
    }

    /// Blocks until it reads `deadline` (true) or the alarm rings (false).
    public func wait(until deadline: Double, or alarm: ThreadAlarm) -> Bool {
        SystemClock().wait(until: wall(at: deadline), or: alarm)
    }
}
