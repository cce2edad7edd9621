/// Work that runs on a task of its own until it ends or is stopped from any task: the one way BlueDot's long
/// runs (an input runner, gpsd's watch) tie a `run()` that waits to a `stop()` that may come first, at the same time,
/// or later.
///
/// `run` starts the body on a task and waits for it; a `stop()` before the run cancels the body at once, one during
/// it cancels it then, and cancelling the task that waits in `run` calls `onCancel` (which stops the work).
public final class StoppableWork: Sendable {
    private let state = LockedValue<(stopped: Bool, task: Task<Void, any Error>?)>((false, nil))

    /// Work not started and not stopped.
    public init() {}

    /// True once `stop()` was called.
    public var isStopped: Bool { state.withLock { $0.stopped } }

    /// Runs `body` on a task of its own until it returns, and rethrows its error; `onCancel` runs when the waiting
    /// task is cancelled.
    public func run(_ body: @escaping @Sendable () async throws -> Void, onCancel: @escaping @Sendable () -> Void)
        async throws
    {
        let task = Task { try await body() }
        let stopped = state.withLock { s in
            s.task = task
            return s.stopped
        }
        if stopped { task.cancel() }
        try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            onCancel()
        }
    }

    /// Marks the work stopped and cancels its task; returns the task (nil before `run`) for a caller that waits for
    /// it. Safe from any task, more than once.
    @discardableResult
    public func stop() -> Task<Void, any Error>? {
        let task = state.withLock { s in
            s.stopped = true
            return s.task
        }
        task?.cancel()
        return task
    }
}
