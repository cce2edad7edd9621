
/// A clock that moves only when told to, for tests: `advance(by:)` wakes the sleepers whose deadlines passed,
/// in deadline order, like swift-nio's `EmbeddedEventLoop.advanceTime(by:)`.
public final class ManualClock: BlueDotClock {
    private struct Sleeper {
        /// How a sleeper is woken: a task's continuation, or a blocked thread's alarm.
        enum Waker {
            case task(CheckedContinuation<Void, any Error>)
            case thread(ThreadAlarm)
        }

        var id: UInt64
        var deadline: Double
        var waker: Waker

        /// Its time came.
        func wake() {
            switch waker {
            case .task(let continuation): continuation.resume()
            case .thread(let alarm): alarm.timeHasCome()
            }
        }
    }

    private struct State {
        var now: Double
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var sleeperWaiters: [(id: UInt64, count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// A new sleeper; wakes those waiting for this many.
        mutating func add(_ sleeper: Sleeper) {
            sleepers.append(sleeper)
            let ready = sleeperWaiters.filter { $0.count <= sleepers.count }
            sleeperWaiters.removeAll { $0.count <= sleepers.count }
            ready.forEach { $0.continuation.resume() }
        }
    }

    private let state: LockedValue<State>

    /// Creates a clock reading `start` seconds.
    public init(start: Double = 0) {
        state = LockedValue(State(now: start))
    }

    /// The current time.
    public func now() -> Double {
        state.withLock { $0.now }
    }

    /// How many tasks (and threads, `wait(until:or:)`) are sleeping on this clock.
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    /// Suspends until the clock has been advanced to `deadline` (returns at once if it already has).
    public func sleep(until deadline: Double) async throws {
        let id = state.withLock { s -> UInt64 in
            s.nextID += 1
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.now >= deadline || Task.isCancelled { return true }
                    s.add(Sleeper(id: id, deadline: deadline, waker: .task(continuation)))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { s -> Sleeper? in
                guard let index = s.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return s.sleepers.remove(at: index)
            }
            if case .task(let continuation) = cancelled?.waker { continuation.resume(throwing: CancellationError()) }
        }
        try Task.checkCancellation()
    }

    /// Blocks the calling thread until the clock has been advanced to `deadline` (true) or the alarm rings
    /// (false); the thread counts as a sleeper for `waitForSleepers`.
    public func wait(until deadline: Double, or alarm: ThreadAlarm) -> Bool {
        alarm.prepare()
        let registered = state.withLock { s -> UInt64? in
            if s.now >= deadline { return nil }
            s.nextID += 1
            s.add(Sleeper(id: s.nextID, deadline: deadline, waker: .thread(alarm)))
            return s.nextID
        }
        guard let id = registered else { return !alarm.hasRung }
        if alarm.block(wallClockDeadline: nil) { return true }
        state.withLock { s in s.sleepers.removeAll { $0.id == id } }
        return false
    }

    /// Moves the clock forward by `seconds` and wakes every sleeper whose deadline is now reached, earliest first.
    public func advance(by seconds: Double) {
        let due = state.withLock { s -> [Sleeper] in
            s.now += seconds
            let now = s.now
            let due = s.sleepers.filter { $0.deadline <= now }.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
            s.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.wake() }
    }

    /// Waits until at least `count` tasks sleep on this clock, so a test can advance time deterministically;
    /// returns early when the waiting task is cancelled (a test's time limit), so a wrong count cannot hang a run.
    public func waitForSleepers(count: Int = 1) async {
        let id = state.withLock { s -> UInt64 in
            s.nextID += 1
            return s.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { s -> Bool in
                    if s.sleepers.count >= count || Task.isCancelled { return true }
                    s.sleeperWaiters.append((id, count, continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
                guard let index = s.sleeperWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.sleeperWaiters.remove(at: index).continuation
            }
            waiter?.resume()
        }
    }
}
