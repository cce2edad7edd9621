import BlueDotCore
import Positioning

/// Replays observations held in memory at their recorded pace (times `speed`), optionally in a loop.
///
/// Times are moved to the clock: the first observation is stamped with the start time, later ones keep their
/// offsets (each loop continues where the previous ended, after `loopGapSeconds`), so fixes carry current times
/// and the engine sees time go forward across loops. Pacing waits on the injected clock (tests advance a
/// `ManualClock`, or replay fast with a high `speed`).
public final class PacedReplaySource: ObservationSource {
    /// For logs.
    public let name: String
    private let observations: [Observation]
    private let speed: Double
    private let loop: Bool
    private let loopGapSeconds: Double
    private let clock: any BlueDotClock
    private let state = LockedValue((stopped: false, statistics: SourceStatistics(), start: Double?.none))

    /// Creates a replay of `observations` (sorted by time here); `speed` 1 is real time.
    public init(
        name: String, observations: [Observation], speed: Double = 1, loop: Bool = false, loopGapSeconds: Double = 2,
        clock: any BlueDotClock
    ) {
        self.name = name
        self.observations = observations.sorted { $0.t < $1.t }
        self.speed = speed
        self.loop = loop
        self.loopGapSeconds = loopGapSeconds
        self.clock = clock
    }

    /// The recorded span of the observations, seconds.
    public var durationSeconds: Double {
        guard let first = observations.first, let last = observations.last else { return 0 }
        return last.t - first.t
    }

    /// Counters so far.
    public var statistics: SourceStatistics { state.withLock { $0.statistics } }

    /// While running: the start time plus the clock time since, times `speed` (the pace observations are
    /// stamped at).
    public func observationTime(at now: Double) -> Double? {
        state.withLock { s in s.start.map { $0 + (now - $0) * speed } }
    }

    /// Stops the replay at its next observation or wait.
    public func stop() { state.withLock { $0.stopped = true } }

    /// Replays until the end (or forever with `loop`) or `stop()`.
    public func run(
        started: @escaping @Sendable () -> Void, _ deliver: @escaping @Sendable (Observation, Double) -> Void
    ) async throws {
        guard let first = observations.first, !state.withLock({ $0.stopped }) else { return }
        let t0 = first.t
        let period = durationSeconds + loopGapSeconds
        let start = clock.now()
        state.withLock { $0.start = start }
        defer { state.withLock { $0.start = nil } }
        started()
        var cycle = 0
        repeat {
            for var o in observations {
                let offset = Double(cycle) * period + (o.t - t0)
                let due = start + offset / speed
                if clock.now() < due {
                    do { try await clock.sleep(until: due) } catch { return }
                }
                if state.withLock({ $0.stopped }) || Task.isCancelled { return }
                o.t = start + offset
                state.withLock { s in
                    s.statistics.reports += 1
                    s.statistics.observations += 1
                }
                deliver(o, clock.now())
            }
            cycle += 1
            if loop { state.withLock { $0.statistics.loops += 1 } }
        } while loop && !state.withLock({ $0.stopped })
    }
}
