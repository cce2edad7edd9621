
/// Fans values out to any number of `AsyncStream` listeners, each fed in the order `yield` was called.
///
/// Every `subscribe()` gives a new stream. A listener that falls behind keeps the newest `bufferLimit` values and
/// loses older ones (`.bufferingNewest`); `nil` means unbounded. A listener that stops iterating is removed.
public final class Broadcast<Element: Sendable>: Sendable {
    private struct State {
        var nextID = 0
        var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
        var finished = false
    }

    private let state = LockedValue(State())
    private let bufferLimit: Int?

    /// Creates a broadcaster whose listeners buffer at most `bufferLimit` values (`nil`: unbounded).
    public init(bufferLimit: Int? = nil) {
        self.bufferLimit = bufferLimit
    }

    /// How many listeners are subscribed.
    public var listenerCount: Int {
        state.withLock { $0.continuations.count }
    }

    /// A new stream that receives every value yielded from now on; `initial` values are delivered first.
    public func subscribe(initial: [Element] = []) -> AsyncStream<Element> {
        let policy: AsyncStream<Element>.Continuation.BufferingPolicy =
            bufferLimit.map { .bufferingNewest($0) } ?? .unbounded
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: policy)
        let id = state.withLock { s -> Int? in
            for value in initial { continuation.yield(value) }
            if s.finished { return nil }
            s.nextID += 1
            s.continuations[s.nextID] = continuation
            return s.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `value` to every listener. Holding the lock while yielding keeps concurrent callers' values in one
    /// order for all listeners; `yield` never blocks.
    public func yield(_ value: Element) {
        state.withLock { s in
            for continuation in s.continuations.values { continuation.yield(value) }
        }
    }

    /// Ends every stream; later subscribers get their initial values and then the end.
    public func finish() {
        let all = state.withLock { s -> [AsyncStream<Element>.Continuation] in
            s.finished = true
            defer { s.continuations.removeAll() }
            return Array(s.continuations.values)
        }
        all.forEach { $0.finish() }
    }
}
