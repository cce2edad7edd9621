import HCI
import Logging
import Positioning
import Scanner

/// Live observations: an `LEScanner` over any transport, its sightings mapped to observations.
///
/// The scanner retries a dropped link itself (counted in `reconnects`); a controller error ends `run` with the
/// error, and the pipeline service restarts the source after a pause, so a fault is never fatal. An `LEScanner`
/// runs once, so every `run` makes a new one over the same transport; the counters add up across them.
public final class ScannerSource: ObservationSource {
    /// The link to the controller.
    public let transport: any HCITransport
    private let mapper: SightingMapper
    private let makeScanner: @Sendable () -> LEScanner
    private let noRSSI = SharedValue(0)
    /// The scanner of the run in progress, the counters of the runs before it, and whether `stop()` was called.
    private let state = SharedValue(State())

    private struct State: Sendable {
        var current: LEScanner?
        var finished = SourceStatistics()
        var stopped = false
    }

    /// Creates a live source; `recorder` sees every HCI packet (`--record`).
    public init(
        transport: any HCITransport, mapper: SightingMapper, recorder: (any HCIPacketRecorder)?,
        wallClock: @escaping @Sendable () -> Double, logger: Logger
    ) {
        self.transport = transport
        self.mapper = mapper
        makeScanner = {
            LEScanner(transport: transport, configuration: ScanConfiguration(), recorder: recorder, clock: wallClock,
                      logger: logger)
        }
    }

    /// `scan:<transport>`.
    public var name: String { "scan:\(transport.name)" }

    /// Sightings are stamped with the wall clock as they arrive: observation time is wall time.
    public func observationTime(atWallTime wall: Double) -> Double? { wall }

    /// The scanners' counters, all runs together.
    public var statistics: SourceStatistics {
        state.withLock { state in
            var out = state.finished
            if let current = state.current { out.add(Self.statistics(of: current)) }
            return out
        }
    }

    /// Sightings without RSSI skipped so far.
    public var sightingsWithoutRSSI: Int { noRSSI.withLock { $0 } }

    /// Stops the scan (scan disabled, link closed); a later `run` returns at once.
    public func stop() {
        let current = state.withLock { state in
            state.stopped = true
            return state.current
        }
        current?.stop()
    }

    /// Scans until stopped, with a scanner of its own.
    public func run(_ deliver: @escaping @Sendable (Observation, Double) -> Void) async throws {
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
        let mapper = mapper
        let noRSSI = noRSSI
        try await scanner.run { sighting in
            if let o = mapper.observation(for: sighting) {
                deliver(o, sighting.timestamp)
            } else {
                noRSSI.withLock { $0 += 1 }
            }
        }
    }

    private static func statistics(of scanner: LEScanner) -> SourceStatistics {
        let s = scanner.statistics
        var out = SourceStatistics()
        out.reports = s.advertisingReports
        out.malformed = s.malformed
        out.reconnects = s.reconnects
        return out
    }
}
