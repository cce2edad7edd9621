import BlueDotCore
import HCI

/// Replays a btsnoop recording as if it were a controller: an `HCITransport` over a file.
///
/// `open()` streams the recording's controller-to-host packets (events and incoming data), paced by the recorded
/// timestamps or as fast as possible. A recording cannot answer: `send(_:)` accepts and ignores every packet, so a
/// scanner driven by a replay sees the recorded answers to the recorded commands, whatever it sends. The file is
/// read incrementally (memory stays flat) and only as fast as the stream is consumed. A damaged file ends the
/// stream, after the packets before the damage, with `BtsnoopFileError.damaged` naming the record and offset.
public final class BtsnoopReplayTransport: HCITransport {
    /// How fast to replay.
    public enum Pacing: Sendable, Hashable {
        /// Deliver packets as fast as the consumer takes them.
        case asFastAsPossible
        /// Keep the recorded gaps, divided by `speed` (2 replays twice as fast). A speed that is not a positive,
        /// finite number replays as fast as possible.
        case recorded(speed: Double)
    }

    /// The recording.
    public let path: String
    /// The pacing of `open()`.
    public let pacing: Pacing
    private let clock: any BlueDotClock
    private let current: LockedValue<ReplaySession?>

    /// Creates a replay of the file at `path`; `clock` paces it (a test clock replays without waiting).
    public init(path: String, pacing: Pacing = .recorded(speed: 1), clock: any BlueDotClock = SystemClock()) {
        self.path = path
        self.pacing = pacing
        self.clock = clock
        current = LockedValue(nil)
    }

    /// `btsnoop:<path>`.
    public var name: String { "btsnoop:\(path)" }

    /// Opens the file and returns its controller-to-host packets; reopening starts from the beginning.
    /// Throws `BtsnoopFileError.open` when the file cannot be opened.
    public func open() async throws -> AsyncThrowingStream<HCIPacket, any Error> {
        let cursor = try BtsnoopFileReader(path: path).makeCursor()
        var speed: Double?
        if case let .recorded(s) = pacing, s > 0, s.isFinite { speed = s }
        let session = ReplaySession(cursor: cursor, speed: speed, clock: clock)
        let previous = current.withLock { current in
            defer { current = session }
            return current
        }
        await previous?.close()
        return AsyncThrowingStream { try await session.next() }
    }

    /// Accepted and ignored: a recording cannot answer commands.
    public func send(_ packet: HCIPacket) async throws {}

    /// Ends the current replay's stream (promptly, even while it waits for the next packet's time).
    public func close() async {
        let session = current.withLock { current in
            defer { current = nil }
            return current
        }
        await session?.close()
    }
}

/// One pass over a recording: pulls records on demand and waits for each packet's time.
actor ReplaySession {
    private let cursor: BtsnoopFileReader.Cursor
    private let speed: Double?
    private let clock: any BlueDotClock
    private var first: BtsnoopTimestamp?
    private var origin = 0.0
    private var sleeper: Task<Void, any Error>?
    private var closed = false

    init(cursor: sending BtsnoopFileReader.Cursor, speed: Double?, clock: any BlueDotClock) {
        self.cursor = cursor
        self.speed = speed
        self.clock = clock
    }

    /// The next controller-to-host packet at its time, nil at the end or after `close()`, or the file's error.
    func next() async throws -> HCIPacket? {
        while !closed {
            guard let record = try cursor.next() else { return nil }
            guard let packet = record.packet, record.direction == .controllerToHost else { continue }
            guard let speed else { return packet }
            guard let first else {
                first = record.timestamp
                origin = clock.now()
                return packet
            }
            let gap = record.timestamp.microsecondsSinceYear0 - first.microsecondsSinceYear0
            let due = origin + Double(gap) * 1e-6 / speed
            let clock = clock
            let task = Task { try await clock.sleep(until: due) }
            sleeper = task
            do {
                try await withTaskCancellationHandler {
                    try await task.value
                } onCancel: {
                    task.cancel()
                }
            } catch {
                return nil  // closed, or the consumer was cancelled
            }
            sleeper = nil
            return closed ? nil : packet
        }
        return nil
    }

    /// Ends the stream and wakes a pending wait.
    func close() {
        closed = true
        sleeper?.cancel()
    }
}
