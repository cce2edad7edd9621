import Positioning
import Synchronization

/// Replays observations held in memory at their recorded pace (times `speed`), optionally in a loop.
///
/// Times are moved to the wall clock: the first observation is stamped with the start time, later ones keep
/// their offsets (each loop continues where the previous ended, after `loopGapSeconds`), so fixes carry current
/// Unix times and the engine sees time go forward across loops. Wall time is injected; pacing uses the
/// continuous clock (tests replay fast with a high `speed`).
public final class PacedReplaySource: ObservationSource {
    /// For logs.
    public let name: String
    private let observations: [Observation]
    private let speed: Double
    private let loop: Bool
    private let loopGapSeconds: Double
    private let clock = ContinuousClock()
    private let wallClock: @Sendable () -> Double
    private let state = Mutex((stopped: false, statistics: SourceStatistics(), startWall: Double?.none))

    /// Creates a replay of `observations` (sorted by time here); `speed` 1 is real time.
    public init(
        name: String, observations: [Observation], speed: Double = 1, loop: Bool = false, loopGapSeconds: Double = 2,
        wallClock: @escaping @Sendable () -> Double
    ) {
        self.name = name
        self.observations = observations.sorted { $0.t < $1.t }
        self.speed = speed
        self.loop = loop
        self.loopGapSeconds = loopGapSeconds
        self.wallClock = wallClock
    }

    /// The recorded span of the observations, seconds.
    public var durationSeconds: Double {
        guard let first = observations.first, let last = observations.last else { return 0 }
        return last.t - first.t
    }

    /// Counters so far.
    public var statistics: SourceStatistics { state.withLock { $0.statistics } }

    /// While running: the start's wall time plus the wall time since, times `speed` (the pace observations are
    /// stamped at).
    public func observationTime(atWallTime wall: Double) -> Double? {
        state.withLock { s in s.startWall.map { $0 + (wall - $0) * speed } }
    }

    /// Stops the replay at its next observation or sleep.
    public func stop() { state.withLock { $0.stopped = true } }

    /// Replays until the end (or forever with `loop`) or `stop()`.
    public func run(_ deliver: @escaping @Sendable (Observation, Double) -> Void) async throws {
        guard let first = observations.first else { return }
        let t0 = first.t
        let period = durationSeconds + loopGapSeconds
        let startWall = wallClock()
        let startInstant = clock.now
        state.withLock { $0.startWall = startWall }
        defer { state.withLock { $0.startWall = nil } }
        var cycle = 0
        repeat {
            for var o in observations {
                let offset = Double(cycle) * period + (o.t - t0)
                let due = startInstant.advanced(by: Self.duration(offset / speed))
                if clock.now < due {
                    do { try await clock.sleep(until: due, tolerance: .milliseconds(2)) } catch { return }
                }
                if state.withLock({ $0.stopped }) || Task.isCancelled { return }
                o.t = startWall + offset
                state.withLock { $0.statistics.reports += 1 }
                deliver(o, wallClock())
            }
            cycle += 1
            if loop { state.withLock { $0.statistics.loops += 1 } }
        } while loop && !state.withLock({ $0.stopped })
    }

    private static func duration(_ seconds: Double) -> Duration {
        .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}
