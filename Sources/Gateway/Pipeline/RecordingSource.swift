import HCI
import HCILinux
import Positioning
import Scanner
import Synchronization

/// Observations from a btsnoop recording, replayed at its recorded pace (times `speed`), optionally in a loop.
///
/// Packets go through `SightingDecoder` (a recording cannot answer a scanner's commands); sightings are stamped
/// with the wall time they are replayed at, so fixes carry current times. A damaged file replays up to the damage
/// and then ends the source with the reader's error (file and offset).
public final class RecordingSource: ObservationSource {
    /// The recording.
    public let path: String
    private let mapper: SightingMapper
    private let speed: Double
    private let loop: Bool
    private let wallClock: @Sendable () -> Double
    private let state = Mutex((stopped: false, statistics: SourceStatistics(), transport: BtsnoopReplayTransport?.none))

    /// Creates a replay of the recording at `path`.
    public init(
        path: String, mapper: SightingMapper, speed: Double = 1, loop: Bool = false,
        wallClock: @escaping @Sendable () -> Double
    ) {
        self.path = path
        self.mapper = mapper
        self.speed = speed
        self.loop = loop
        self.wallClock = wallClock
    }

    /// `replay:<path>`.
    public var name: String { "replay:\(path)" }

    /// Sightings are stamped with the wall time they are replayed at: observation time is wall time.
    public func observationTime(atWallTime wall: Double) -> Double? { wall }

    /// Counters so far.
    public var statistics: SourceStatistics { state.withLock { $0.statistics } }

    /// Stops at the next packet.
    public func stop() {
        let transport = state.withLock { s in
            s.stopped = true
            return s.transport
        }
        if let transport { Task { await transport.close() } }
    }

    /// Replays until the end (or forever with `loop`) or `stop()`.
    public func run(_ deliver: @escaping @Sendable (Observation, Double) -> Void) async throws {
        repeat {
            let transport = BtsnoopReplayTransport(path: path, pacing: .recorded(speed: speed))
            state.withLock { $0.transport = transport }
            var decoder = SightingDecoder()
            let packets = try await transport.open()
            var counted = (reports: 0, malformed: 0)
            for try await packet in packets {
                if state.withLock({ $0.stopped }) || Task.isCancelled { break }
                let now = wallClock()
                for sighting in decoder.decode(packet, timestamp: now) {
                    if let o = mapper.observation(for: sighting) { deliver(o, now) }
                }
                let reports = decoder.statistics.advertisingReports
                let malformed = decoder.statistics.malformed
                state.withLock { s in
                    s.statistics.reports += reports - counted.reports
                    s.statistics.malformed += malformed - counted.malformed
                }
                counted = (reports, malformed)
            }
            await transport.close()
            if state.withLock({ $0.stopped }) { return }
            if loop { state.withLock { $0.statistics.loops += 1 } }
        } while loop
    }
}
