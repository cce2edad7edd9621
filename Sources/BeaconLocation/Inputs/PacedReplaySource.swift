import BlueDotCore
import Formats
import JSON
import Positioning

/// Replays observations at their recorded pace (times `speed`), optionally in a loop: held in memory, or streamed
/// from an observation file (read again for each loop, so memory stays flat whatever the file's size).
///
/// Times are moved to the clock: the first observation is stamped with the start time, later ones keep their
/// offsets (each loop continues where the previous ended, after `loopGapSeconds`), so fixes carry current times
/// and the engine sees time go forward across loops. Pacing waits on the injected clock (tests advance a
/// `ManualClock`, or replay fast with a high `speed`), at most once per `pacingQuantumSeconds` (2 ms by default):
/// what falls due meanwhile goes out together when it wakes, as one batch, at most one quantum after its time,
/// never before, and each batch says how far it reaches (`deliveredThrough()`), so fixes go out with the batch
/// that completes them. At 3,000 observations a second a wait for each one cost the daemon a third of its CPU in
/// timers and wake-ups. A wait every 10 ms costs about a third less than every 2 ms, but a report then waits up to
/// 10 ms before it is handed over: from a fix's time to the browser the p99 goes from 3.2-3.6 ms to 10.4 ms, over the
/// target of 5 (`docs/gateway.md`, "Figures"), so 2 ms it is.
///
/// The replay runs on a thread of its own (`bluedot-replay`), which blocks on the clock between observations
/// (`BlueDotClock.wait(until:or:)`) and delivers on that thread: a wait then wakes one thread, where a task's sleep
/// woke libdispatch's timer thread and then a thread of Swift's pool, twice the wake-ups for the same work.
public final class PacedReplaySource: ObservationSource {
    /// Where the observations come from.
    private enum Input: Sendable {
        case memory([Observation])
        case file(path: String, options: ObservationReader.Options)
    }

    /// For logs.
    public let name: String
    private let input: Input
    private let speed: Double
    private let loop: Bool
    private let loopGapSeconds: Double
    private let pacingQuantumSeconds: Double
    private let clock: any BlueDotClock
    private let state = LockedValue(
        (stopped: false, statistics: SourceStatistics(), start: Double?.none, alarm: ThreadAlarm?.none,
         deliveredThrough: Double?.none))

    /// Creates a replay of `observations` (sorted by time here); `speed` 1 is real time.
    public init(
        name: String, observations: [Observation], speed: Double = 1, loop: Bool = false, loopGapSeconds: Double = 2,
        pacingQuantumSeconds: Double = 0.002, clock: any BlueDotClock
    ) {
        self.name = name
        self.input = .memory(observations.sorted { $0.t < $1.t })
        self.speed = speed
        self.loop = loop
        self.loopGapSeconds = loopGapSeconds
        self.pacingQuantumSeconds = max(0, pacingQuantumSeconds)
        self.clock = clock
    }

    /// Creates a replay that streams the observation file at `path` through an `ObservationReader` with `options`
    /// (which puts slightly disordered lines back in order and counts the lines it cannot use). The file is opened
    /// here once, so that a missing or unreadable file fails at once, and again for each pass.
    public init(
        name: String, path: String, options: ObservationReader.Options = .init(), speed: Double = 1,
        loop: Bool = false, loopGapSeconds: Double = 2, pacingQuantumSeconds: Double = 0.002, clock: any BlueDotClock
    ) throws(JSONLinesError) {
        _ = try ObservationReader(path: path, options: options)
        self.name = name
        self.input = .file(path: path, options: options)
        self.speed = speed
        self.loop = loop
        self.loopGapSeconds = loopGapSeconds
        self.pacingQuantumSeconds = max(0, pacingQuantumSeconds)
        self.clock = clock
    }

    /// Counters so far.
    public var statistics: SourceStatistics { state.withLock { $0.statistics } }

    /// While running: the start time plus the clock time since, times `speed` (the pace observations are
    /// stamped at).
    public func observationTime(at now: Double) -> Double? {
        state.withLock { s in s.start.map { $0 + (now - $0) * speed } }
    }

    /// The most observations handed over at once.
    static let batchLimit = 256

    /// While a pass runs: the stamped time of the next observation, before which everything was handed over.
    public func deliveredThrough() -> Double? { state.withLock { $0.deliveredThrough } }

    /// Stops the replay at its next observation, or in its wait.
    public func stop() {
        state.withLock { s in
            s.stopped = true
            return s.alarm
        }?.ring()
    }

    /// One pass over the observations, in time order.
    private func pass() throws(JSONLinesError) -> () throws(JSONLinesError) -> Observation? {
        switch input {
        case .memory(let observations):
            var k = 0
            return {
                guard k < observations.count else { return nil }
                defer { k += 1 }
                return observations[k]
            }
        case .file(let path, let options):
            var reader = try ObservationReader(path: path, options: options)
            return { try reader.next()?.observation }
        }
    }

    /// Replays until the end (or forever with `loop`) or `stop()`, on a thread of its own, handing over together
    /// what falls due in one wake of the thread; cancelling the calling task stops it.
    public func run(
        started: @escaping @Sendable () -> Void, _ deliver: @escaping @Sendable (ObservationBatch) -> Void
    ) async throws {
        let alarm = ThreadAlarm()
        if state.withLock({ s in
            s.alarm = alarm
            return s.stopped
        }) { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
                SystemThread.detach(name: "bluedot-replay") {
                    do {
                        try self.replay(alarm: alarm, started: started, deliver)
                        done.resume()
                    } catch {
                        done.resume(throwing: error)
                    }
                }
            }
        } onCancel: {
            alarm.ring()
        }
    }

    /// The replay itself, on its thread: returns at the end, or when the alarm rings (`stop()`, cancellation).
    private func replay(
        alarm: ThreadAlarm, started: @Sendable () -> Void, _ deliver: @Sendable (ObservationBatch) -> Void
    ) throws {
        var next = try pass()
        guard let first = try next(), !state.withLock({ $0.stopped }) else { return }
        let t0 = first.t
        let start = clock.now()
        state.withLock { $0.start = start }
        defer {
            state.withLock { s in
                s.start = nil
                s.deliveredThrough = nil
            }
        }
        started()
        var cycle = 0
        // The time from one pass's start to the next's: the first pass's span plus the gap.
        var period = 0.0
        var pending: Observation? = first
        var lastWake = -Double.infinity
        // What is due now, handed over before the next wait (which is for an observation stamped `next`, or for
        // the next pass: nil).
        var batch: [Observation] = []
        func handOver(before next: Double?) -> Bool {
            guard !batch.isEmpty else { return true }
            let stopped = state.withLock { s in
                s.statistics.reports += batch.count
                s.statistics.observations += batch.count
                s.deliveredThrough = next
                return s.stopped
            }
            if stopped || alarm.hasRung { return false }
            deliver(ObservationBatch(batch, arrivedAt: clock.now()))
            batch.removeAll(keepingCapacity: true)
            return true
        }
        repeat {
            var last = t0
            while var o = try pending ?? next() {
                pending = nil
                last = o.t
                let offset = Double(cycle) * period + (o.t - t0)
                let due = start + offset / speed
                if batch.count >= Self.batchLimit {
                    // A replay faster than it is read (a high speed) hands over in bounded batches all the same.
                    guard handOver(before: start + offset) else { return }
                }
                if clock.now() < due {
                    guard handOver(before: start + offset) else { return }
                    // At most one wait per quantum: what falls due meanwhile goes out together.
                    let wake = max(due, lastWake + pacingQuantumSeconds)
                    guard clock.wait(until: wake, or: alarm) else { return }
                    lastWake = wake
                }
                o.t = start + offset
                batch.append(o)
            }
            guard handOver(before: nil) else { return }
            if cycle == 0 { period = last - t0 + loopGapSeconds }
            cycle += 1
            if loop {
                state.withLock { $0.statistics.loops += 1 }
                next = try pass()
            }
        } while loop && !state.withLock({ $0.stopped })
    }
}

