import BlueDotCore
import LocationDisplay
import Logging
import Positioning

/// Runs the spine's inputs, several at once, into one `PositioningPipeline` and hands the locations it makes
/// to `deliver`; a `tap` sees every batch first (a site's receiver publishes them, and runs without an
/// engine).
///
/// Every `tickSeconds` on the clock it releases the engine's grid up to the inputs' observation clocks
/// (`ObservationSource.observationTime`, `releaseDelaySeconds` behind, the earliest of the running inputs so no
/// input's reports come too late), so targets that go quiet keep getting last-known fixes. After each batch it
/// also releases the grid up to where every input has handed over all it will (`ObservationSource.deliveredThrough`,
/// known for replays), so a fix goes out with the batch that completes it. A failed input is
/// restarted after `restartDelaySeconds` (a scanner fault is not fatal), or, without a restart delay, ends the
/// run with its error. `stop()` stops every input and the ticker; `run` then returns.
public final class InputRunner: Sendable {
    /// How the runner treats its inputs.
    public struct Policy: Sendable, Hashable {
        /// Pause before restarting a failed input; nil: a failure ends `run` with the error.
        public var restartDelaySeconds: Double?
        /// How often the grid is released by the clock; nil: only observations release it (a recording read as
        /// fast as a test clock allows, where ticking would race the reader).
        public var tickSeconds: Double?
        /// How far behind the inputs' clocks the grid is released: a report stamped just before a tick must not
        /// come too late for its grid point.
        public var releaseDelaySeconds: Double
        /// When every input has ended: flush the engine's pending fixes and return (a replay's end), rather
        /// than keep releasing last-known fixes until `stop()` (a daemon).
        public var finishWhenInputsEnd: Bool

        /// Creates a policy.
        public init(restartDelaySeconds: Double? = 2, tickSeconds: Double? = 1, releaseDelaySeconds: Double = 0.5,
                    finishWhenInputsEnd: Bool = false) {
            self.restartDelaySeconds = restartDelaySeconds
            self.tickSeconds = tickSeconds
            self.releaseDelaySeconds = releaseDelaySeconds
            self.finishWhenInputsEnd = finishWhenInputsEnd
        }
    }

    private struct State {
        var started = false
    }

    /// The inputs.
    public let inputs: [any ObservationSource]
    /// The positioning step they feed; nil when only the tap takes them.
    public let pipeline: PositioningPipeline?
    /// The policy.
    public let policy: Policy
    private let clock: any BlueDotClock
    private let logger: Logger
    private let deliver: @Sendable ([Location]) -> Void
    private let tap: (@Sendable (ObservationBatch) -> Void)?
    private let state = LockedValue(State())
    private let running = StoppableWork()

    /// Creates a runner; nothing runs until `run`. `tap` sees each batch before the pipeline does.
    public init(
        inputs: [any ObservationSource], pipeline: PositioningPipeline?, clock: any BlueDotClock,
        policy: Policy = Policy(), logger: Logger, tap: (@Sendable (ObservationBatch) -> Void)? = nil,
        deliver: @escaping @Sendable ([Location]) -> Void
    ) {
        self.inputs = inputs
        self.pipeline = pipeline
        self.tap = tap
        self.clock = clock
        self.policy = policy
        self.logger = logger
        self.deliver = deliver
    }

    /// The inputs' counters, summed.
    public var statistics: SourceStatistics {
        inputs.reduce(into: SourceStatistics()) { $0.add($1.statistics) }
    }

    /// Runs until `stop()`, or until every input ended (with `finishWhenInputsEnd`), or an input failed (without
    /// a restart delay: rethrown). `onStarted` is called once, when the first input starts delivering.
    public func run(onStarted: @escaping @Sendable () -> Void = {}) async throws {
        try await running.run({ try await self.work(onStarted: onStarted) }, onCancel: { self.stop() })
    }

    /// Stops every input (a scan is disabled, a link closed) and the ticker; safe from any task, more than once.
    public func stop() {
        running.stop()
        for input in inputs { input.stop() }
    }

    private var isStopped: Bool { running.isStopped }

    private func work(onStarted: @escaping @Sendable () -> Void) async throws {
        // Children report whether they were an input (true) or the ticker (false).
        try await withThrowingTaskGroup(of: Bool.self) { group in
            if policy.tickSeconds != nil, pipeline != nil {
                group.addTask {
                    await self.tick()
                    return false
                }
            }
            for input in inputs {
                group.addTask {
                    try await self.keepRunning(input, onStarted: onStarted)
                    return true
                }
            }
            var running = inputs.count
            do {
                while running > 0, let wasInput = try await group.next() {
                    if wasInput { running -= 1 }
                }
            } catch {
                stop()
                group.cancelAll()
                throw error
            }
            if isStopped || policy.finishWhenInputsEnd {
                group.cancelAll()
                while try await group.next() != nil {}
                let rest = isStopped ? [] : pipeline?.finish() ?? []
                if !rest.isEmpty { deliver(rest) }
                return
            }
            // Every input ended (a replay without a loop): its last fixes stay; the grid goes on being released
            // until `stop()`.
            try await group.waitForAll()
        }
    }

    /// Runs one input, restarting it after a failure as the policy says, until it ends or the runner stops.
    private func keepRunning(_ input: any ObservationSource, onStarted: @escaping @Sendable () -> Void) async throws {
        let pipeline = pipeline, deliver = deliver, state = state, tap = tap
        while !isStopped && !Task.isCancelled {
            logger.info("input starting", metadata: ["input": "\(input.name)"])
            do {
                try await input.run(started: {
                    let first = state.withLock { s in
                        defer { s.started = true }
                        return !s.started
                    }
                    if first { onStarted() }
                }) { batch in
                    tap?(batch)
                    guard let pipeline else { return }
                    var located = pipeline.ingest(batch)
                    if let through = self.deliveredThrough() { located += pipeline.advance(to: through) }
                    if !located.isEmpty { deliver(located) }
                }
                logger.info("input ended", metadata: ["input": "\(input.name)"])
                return
            } catch {
                if isStopped { return }
                guard let delay = policy.restartDelaySeconds else { throw error }
                logger.error("input failed; restarting", metadata: ["input": "\(input.name)", "error": "\(error)"])
                do { try await clock.sleep(seconds: delay) } catch { return }
            }
        }
    }

    /// The observation time before which every input has handed over all it will (`deliveredThrough()`); nil when
    /// one of them cannot say.
    private func deliveredThrough() -> Double? {
        var earliest = Double.infinity
        for input in inputs {
            guard let t = input.deliveredThrough() else { return nil }
            earliest = min(earliest, t)
        }
        return earliest.isFinite ? earliest : nil
    }

    /// Releases the grid by the inputs' clocks every `tickSeconds` until cancelled.
    private func tick() async {
        guard let interval = policy.tickSeconds, let pipeline else { return }
        var next = clock.now() + interval
        while !Task.isCancelled {
            do { try await clock.sleep(until: next) } catch { return }
            next += interval
            let now = clock.now()
            if now > next { next = now + interval }
            let times = inputs.compactMap { $0.observationTime(at: now - policy.releaseDelaySeconds) }
            guard let t = times.min() else { continue }
            let released = pipeline.advance(to: t)
            if !released.isEmpty { deliver(released) }
        }
    }
}
