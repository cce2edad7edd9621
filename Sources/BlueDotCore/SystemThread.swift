import Glibc

/// Threads and the lock-and-condition pair of the system (POSIX threads), for the few places that block on
/// purpose: a descriptor's read loop, the history's writer, a connect with a timeout. Swift's cooperative pool must
/// never wait on them. BlueDot's modules use these rather than Foundation's `Thread` and `NSCondition`, so the
/// daemon does not load Foundation (and ICU) for them.
public enum SystemThread {
    /// Starts `body` on a new detached thread named `name` (the kernel keeps its first 15 bytes, which `top -H` and
    /// `perf` show).
    public static func detach(name: String, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(ThreadBody(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { raw in
            let start = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
            start.run()
            return nil
        }, box)
        // Without a thread the process cannot go on: EAGAIN here means the system is out of threads or memory.
        precondition(status == 0, "pthread_create failed for \(name): \(String(cString: strerror(status)))")
        pthread_detach(thread)
    }
}

/// What a new thread runs, carried across `pthread_create`.
private final class ThreadBody: @unchecked Sendable {
    // @unchecked: immutable after creation; handed from the creating thread to the new one once.
    let name: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }

    func run() {
        _ = setThreadName(pthread_self(), String(name.utf8.prefix(15)) ?? "bluedot")
        body()
    }
}

/// glibc's `pthread_setname_np`, which Swift's Glibc module leaves out (its header declares it under
/// `_GNU_SOURCE` only).
@_silgen_name("pthread_setname_np")
private func setThreadName(_ thread: pthread_t, _ name: UnsafePointer<CChar>) -> Int32

/// A mutex with a condition variable: the caller takes the lock, waits for a change another thread signals, and
/// gives the lock back. For locked state alone, use `LockedValue`.
public final class ThreadCondition: @unchecked Sendable {
    // @unchecked: the mutex and the condition are the synchronisation; both live as long as the object.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// Creates an unlocked mutex and its condition.
    public init() {
        mutex = POSIXMutex.make()
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        POSIXMutex.destroy(mutex)
    }

    /// Takes the lock.
    public func lock() { pthread_mutex_lock(mutex) }

    /// Gives the lock back.
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// With the lock held: gives it up until signalled (or woken spuriously), then holds it again.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// With the lock held: like `wait()`, but returns by `secondsSince1970` (wall-clock time) at the latest.
    /// Returns false when the time came first.
    @discardableResult
    public func wait(untilSecondsSince1970 deadline: Double) -> Bool {
        let whole = deadline.rounded(.down)
        var limit = timespec(tv_sec: Int(whole), tv_nsec: Int(((deadline - whole) * 1e9).rounded(.down)))
        return pthread_cond_timedwait(condition, mutex, &limit) == 0
    }

    /// Wakes one waiter.
    public func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiter.
    public func broadcast() { pthread_cond_broadcast(condition) }
}

/// A pthread mutex in memory of its own (a mutex must not move), for `LockedValue` and `ThreadCondition`.
enum POSIXMutex {
    static func make() -> UnsafeMutablePointer<pthread_mutex_t> {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        return mutex
    }

    static func destroy(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
}
