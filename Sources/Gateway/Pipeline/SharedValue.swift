import Synchronization

/// A value behind a lock that closures and tasks can share by reference (a `Mutex` cannot be captured).
final class SharedValue<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    /// Runs `body` with exclusive access to the value.
    func withLock<R>(_ body: (inout sending Value) -> sending R) -> sending R {
        mutex.withLock(body)
    }

    /// The value now.
    var value: Value { mutex.withLock { $0 } }
}
