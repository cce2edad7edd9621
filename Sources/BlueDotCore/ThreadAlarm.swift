import Glibc

/// Wakes a thread that waits on a clock (`BlueDotClock.wait(until:or:)`) before its time: `ring()`, from any thread,
/// stops the wait under way and every later one. A replay that runs on a thread of its own waits on one, and its
/// `stop()` rings it.
public final class ThreadAlarm: @unchecked Sendable {
    // @unchecked: `rung` and `timeCame` are read and written with the condition's lock held.
    private let condition = ThreadCondition()
    private var rung = false
    private var timeCame = false

    /// An alarm that has not rung.
    public init() {}

    /// Rings: the wait under way returns false, and so does every later one.
    public func ring() {
        condition.lock()
        rung = true
        condition.broadcast()
        condition.unlock()
    }

    /// Whether `ring()` was called.
    public var hasRung: Bool {
        condition.lock()
        defer { condition.unlock() }
        return rung
    }

    // MARK: For clocks

    /// Before a clock registers a wait that another thread ends with `timeHasCome()`: forgets an earlier wait's.
    public func prepare() {
        condition.lock()
        timeCame = false
        condition.unlock()
    }

    /// Ends the wait a clock prepared: its time came (a test clock was advanced).
    public func timeHasCome() {
        condition.lock()
        timeCame = true
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks until the alarm rings (false), `timeHasCome()` is called (true) or, when given, the wall clock reaches
    /// `wallClockDeadline` (Unix seconds; true).
    public func block(wallClockDeadline: Double?) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !rung && !timeCame {
            if let deadline = wallClockDeadline {
                if !condition.wait(untilSecondsSince1970: deadline), !rung { return true }
            } else {
                condition.wait()
            }
        }
        return !rung
    }
}
