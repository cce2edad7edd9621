import BlueDotCore
import HCI
import Positioning
import Scanner
import SystemIO

/// Observations from packets read passively off a transport, no commands sent: a btsnoop recording replayed at
/// its recorded pace (times `speed`) on the injected clock, optionally in a loop, or any `HCITransport` whose
/// packets need no scanner session.
///
/// Packets go through `ObservationDecoder`; sightings are stamped with the clock time they arrive at, so fixes
/// carry current times. A transport that cannot be opened ends `run` with `BeaconLocationError.recordingUnavailable`;
/// a damaged file replays up to the damage and then ends the source with `recordingFailed` (file and offset).
public final class RecordingSource: ObservationSource {
    /// For logs: `replay:<path>` or the transport's name.
    public let name: String
    private let makeTransport: @Sendable () -> any HCITransport
    private let mapper: SightingMapper
    private let loop: Bool
    private let clock: any BlueDotClock
    private let state = LockedValue((stopped: false, statistics: SourceStatistics(), transport: (any HCITransport)?.none))

    /// Creates a replay of the btsnoop recording at `path`, paced on `clock`.
    public convenience init(
        path: String, mapper: SightingMapper, speed: Double = 1, loop: Bool = false, clock: any BlueDotClock
    ) {
        self.init(name: "replay:\(path)", mapper: mapper, loop: loop, clock: clock) {
            BtsnoopReplayTransport(path: path, pacing: .recorded(speed: speed))
        }
    }

    /// Creates a source over the transports `makeTransport` makes (a fresh one per loop).
    public init(
        name: String, mapper: SightingMapper, loop: Bool = false, clock: any BlueDotClock,
        makeTransport: @escaping @Sendable () -> any HCITransport
    ) {
        self.name = name
        self.makeTransport = makeTransport
        self.mapper = mapper
        self.loop = loop
        self.clock = clock
    }

    /// Sightings are stamped with the clock as they arrive: observation time is clock time.
    public func observationTime(at now: Double) -> Double? { now }

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

    /// Reads until the end (or forever with `loop`) or `stop()`.
    public func run(
        started: @escaping @Sendable () -> Void, _ deliver: @escaping @Sendable (ObservationBatch) -> Void
    ) async throws {
        var announced = false
        repeat {
            let transport = makeTransport()
            guard !state.withLock({ s in
                s.transport = transport
                return s.stopped
            }) else { return }
            let packets: AsyncThrowingStream<HCIPacket, any Error>
            do {
                packets = try await transport.open()
            } catch {
                throw BeaconLocationError.recordingUnavailable(transport: transport.name, reason: "\(error)")
            }
            if !announced {
                announced = true
                started()
            }
            var decoder = ObservationDecoder(mapper: mapper)
            var counted = SourceStatistics()
            do {
                for try await packet in packets {
                    let now = clock.now()
                    // A packet's reports (an LE event may hold several) arrive together.
                    var batch = ObservationBatch()
                    decoder.decode(packet, timestamp: now) { batch.append(Arrival($0, arrivedAt: now)) }
                    if !batch.isEmpty { deliver(batch) }
                    let run = Self.statistics(of: decoder)
                    let delta = run.minus(counted)
                    counted = run
                    // One lock per packet: the counters, and whether to stop.
                    let stopped = state.withLock { s in
                        s.statistics.add(delta)
                        return s.stopped
                    }
                    if stopped || Task.isCancelled { break }
                }
            } catch {
                await transport.close()
                if state.withLock({ $0.stopped }) { return }
                throw BeaconLocationError.recordingFailed(transport: transport.name, reason: "\(error)")
            }
            await transport.close()
            if state.withLock({ $0.stopped }) { return }
            if loop { state.withLock { $0.statistics.loops += 1 } }
        } while loop
    }

    private static func statistics(of decoder: ObservationDecoder) -> SourceStatistics {
        var out = SourceStatistics()
        out.reports = decoder.statistics.advertisingReports
        out.malformed = decoder.statistics.malformed
        out.withoutRSSI = decoder.sightingsWithoutRSSI
        out.observations = decoder.observations
        return out
    }
}

extension SourceStatistics {
    /// These counters less `earlier` (what a running source added since).
    func minus(_ earlier: SourceStatistics) -> SourceStatistics {
        var out = SourceStatistics()
        out.reports = reports - earlier.reports
        out.malformed = malformed - earlier.malformed
        out.withoutRSSI = withoutRSSI - earlier.withoutRSSI
        out.observations = observations - earlier.observations
        out.reconnects = reconnects - earlier.reconnects
        out.loops = loops - earlier.loops
        return out
    }
}
