import Positioning
import Synchronization

/// The gateway's current picture: the latest fix and drawing state of every target, and the push feed.
///
/// The pipeline publishes fixes; the API reads `current` and web clients `subscribe()` to SSE frames. A new
/// subscriber first gets every current target, then live events. A slow subscriber loses its oldest frames
/// (bounded buffer) rather than holding the pipeline up. `close()` ends every subscription (shutdown).
public final class LocationHub: Sendable {
    private struct Entry: Sendable {
        var fix: LocationFix
        var drawing: DotDrawing
        var reportedAt: Double?
    }

    private struct State: Sendable {
        var entries: [String: Entry] = [:]
        var subscribers: [UInt64: AsyncStream<String>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
        var nextEventID: UInt64 = 0
        var closed = false
    }

    private let state = Mutex(State())
    /// Rules turning fixes into drawing state.
    public let rules: DotDrawingRules
    /// A target not heard for this many seconds is removed.
    public let removeAfterSeconds: Double
    /// Frames buffered per subscriber before the oldest are dropped.
    public let bufferLimit: Int

    /// Creates an empty hub.
    public init(rules: DotDrawingRules = DotDrawingRules(), removeAfterSeconds: Double = 60, bufferLimit: Int = 4096) {
        self.rules = rules
        self.removeAfterSeconds = removeAfterSeconds
        self.bufferLimit = bufferLimit
    }

    /// Publishes a fix at wall time `now`; `reportedAt` is the wall time of the newest report behind it.
    public func publish(_ fix: LocationFix, now: Double, reportedAt: Double? = nil) {
        let drawing = rules.drawing(for: fix, now: now, fresh: true)
        broadcast { s in
            s.entries[fix.target] = Entry(fix: fix, drawing: drawing, reportedAt: reportedAt)
            return [.fix(fix, drawing, reportedAt: reportedAt)]
        }
    }

    /// Re-evaluates drawing states at `now`: targets that went stale get a `display` event, targets not heard
    /// for `removeAfterSeconds` a `removed` event.
    public func sweep(now: Double) {
        broadcast { s in
            var events: [FeedEvent] = []
            for (target, entry) in s.entries.sorted(by: { $0.key < $1.key }) {
                if now - entry.fix.t > removeAfterSeconds {
                    s.entries[target] = nil
                    events.append(.removed(target: target))
                    continue
                }
                var drawing = rules.drawing(for: entry.fix, now: now, fresh: false)
                drawing.ping = false
                var old = entry.drawing
                old.ping = false
                if drawing != old {
                    s.entries[target]?.drawing = drawing
                    events.append(.display(target: target, drawing))
                }
            }
            return events
        }
    }

    /// The current fixes, sorted by target.
    public var current: [LocationFix] {
        state.withLock { s in s.entries.values.map(\.fix).sorted { $0.target < $1.target } }
    }

    /// Number of targets with a current fix.
    public var targetCount: Int { state.withLock { $0.entries.count } }

    /// Number of open subscriptions.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// A stream of SSE frames: the current state first, then live events, until `close()` or cancellation (after
    /// `close()`, only the current state).
    public func subscribe() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        let id: UInt64? = state.withLock { s in
            for entry in s.entries.values.sorted(by: { $0.fix.target < $1.fix.target }) {
                var drawing = entry.drawing
                drawing.ping = false
                s.nextEventID += 1
                continuation.yield(FeedEvent.fix(entry.fix, drawing, reportedAt: entry.reportedAt).frame(id: s.nextEventID))
            }
            guard !s.closed else { return nil }
            s.nextSubscriber += 1
            s.subscribers[s.nextSubscriber] = continuation
            return s.nextSubscriber
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every subscription; later subscriptions end at once.
    public func close() {
        let continuations = state.withLock { s in
            s.closed = true
            defer { s.subscribers.removeAll() }
            return Array(s.subscribers.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    /// Applies a change under the lock and sends the events it returns to every subscriber.
    private func broadcast(_ change: (inout State) -> [FeedEvent]) {
        state.withLock { s in
            let events = change(&s)
            for event in events {
                s.nextEventID += 1
                let frame = event.frame(id: s.nextEventID)
                for continuation in s.subscribers.values { continuation.yield(frame) }
            }
        }
    }
}
