import NIOCore

/// Runs a task's jobs on one swift-nio event loop: a task that waits on values another thread sends (the push feed
/// waiting on the hub) then wakes that loop's thread only, and the writes it makes to a connection of the same
/// loop go straight to the channel, instead of waking a thread of Swift's pool that hands each write on to the loop.
public final class EventLoopTaskExecutor: TaskExecutor {
    /// The loop the jobs run on.
    public let eventLoop: any EventLoop

    /// An executor on `eventLoop`.
    public init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
