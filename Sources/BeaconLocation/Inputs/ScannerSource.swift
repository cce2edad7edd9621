import BlueDotCore
import HCI
import Logging
import Positioning
import Scanner

/// Live observations: an `LEScanner` over any transport, its sightings mapped to observations.
///
/// The scanner retries a dropped link itself (counted in `reconnects`); a controller error ends `run` with the
/// error, and the runner restarts the source after a pause (or the data source stops with it). An `LEScanner`
/// runs once, so every `run` makes a new one over the same transport; the counters add up across them.
public final class ScannerSource: ObservationSource {
    /// The link to the controller.
    public let transport: any HCITransport
    private let makeScanner: @Sendable () -> LEScanner
    /// The scanner of the run in progress, the counters of the runs before it, the sightings mapped to observations
    /// (with their counts), and whether `stop()` was called.
    private let state: LockedValue<State>

    private struct State {
        var current: LEScanner?
        var finished = SourceStatistics()
        var mapping: ObservationDecoder
        var stopped = false
    }

    /// Creates a live source over `transport` scanning with `configuration`; `recorder` sees every HCI packet
    /// (`--record`); sightings are stamped with `clock`, on which the scanner also waits.
    public init(
        transport: any HCITransport, mapper: SightingMapper, configuration: ScanConfiguration = ScanConfiguration(),
        recorder: (any HCIPacketRecorder)? = nil, clock: any BlueDotClock, logger: Logger
    ) {
        self.transport = transport
        state = LockedValue(State(mapping: ObservationDecoder(mapper: mapper)))
        makeScanner = {
            LEScanner(transport: transport, configuration: configuration, recorder: recorder, clock: clock,
                      logger: logger)
        }
    }

    /// `scan:<transport>`.
    public var name: String { "scan:\(transport.name)" }

    /// Sightings are stamped with the clock as they arrive: observation time is clock time.
    public func observationTime(at now: Double) -> Double? { now }

    /// Whether the controller scans now: false while its link is down or being set up, and while another program's
    /// scan command is being answered (`/api/health`'s `scan`).
    public var isScanning: Bool { state.withLock { $0.current?.isScanning ?? false } }

    /// Whether the scan is stalled (`LEScanner.isStalled`): set up, but not delivering the reports its rate promised.
    public var isStalled: Bool { state.withLock { $0.current?.isStalled ?? false } }

    /// The scanners' counters, all runs together.
    public var statistics: SourceStatistics {
        state.withLock { state in
            var out = state.finished
            if let current = state.current { out.add(Self.statistics(of: current)) }
            out.withoutRSSI = state.mapping.sightingsWithoutRSSI
            out.observations = state.mapping.observations
            return out
        }
    }

    /// Stops the scan (scan disabled, link closed); a later `run` returns at once.
    public func stop() {
        let current = state.withLock { state in
            state.stopped = true
            return state.current
        }
        current?.stop()
    }

    /// Scans until stopped, with a scanner of its own; `started` once the controller scans.
    public func run(
        started: @escaping @Sendable () -> Void, _ deliver: @escaping @Sendable (ObservationBatch) -> Void
    ) async throws {
        let scanner = makeScanner()
        let stopped = state.withLock { state in
            if !state.stopped { state.current = scanner }
            return state.stopped
        }
        guard !stopped else { return }
        defer {
            state.withLock { state in
                state.finished.add(Self.statistics(of: scanner))
                state.current = nil
            }
        }
        let state = state
        try await scanner.run(onScanning: started) { sighting in
            guard let o = state.withLock({ $0.mapping.map(sighting) }) else { return }
            deliver([Arrival(o, arrivedAt: sighting.timestamp)])
        }
    }

    private static func statistics(of scanner: LEScanner) -> SourceStatistics {
        let s = scanner.statistics
        var out = SourceStatistics()
        out.reports = s.advertisingReports
        out.malformed = s.malformed
        out.reconnects = s.reconnects
        out.scanRecoveries = s.scanRecoveries
        return out
    }
}
