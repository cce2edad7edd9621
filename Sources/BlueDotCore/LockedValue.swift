import Glibc

/// A value behind a lock, for mutable state shared between tasks and closures (sources, displays, the gateway's
/// services): the one lock wrapper of BlueDot.
///
/// It wraps a pthread mutex rather than `Synchronization.Mutex`: on Linux, `Mutex` hands a contended
/// lock over through the kernel's priority-inheritance futex, which the thread sanitizer cannot see, so correct
/// code under contention is reported as racing. A pthread mutex is intercepted by the sanitizer, which keeps
/// `swift test --sanitize=thread` meaningful. Never call back into code that may take the same lock from `body`.
public final class LockedValue<Value>: @unchecked Sendable {
    // @unchecked: `stored` is only touched while `lock` is held.
    // Usable from inlined code, so `withLock` is specialized in its callers (it is on every hot path).
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline var stored: Value

    /// Creates the lock around an initial value.
    public init(_ value: Value) {
        stored = value
        mutex = POSIXMutex.make()
    }

    deinit {
        POSIXMutex.destroy(mutex)
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&stored)
    }

    /// A copy of the value now.
    @inlinable public var value: Value {
        withLock { $0 }
    }
}
