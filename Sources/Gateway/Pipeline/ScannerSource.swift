import HCI
import Logging
import Positioning
import Scanner

/// Live observations: an `LEScanner` over any transport, its sightings mapped to observations.
///
/// The scanner retries a dropped link itself (counted in `reconnects`); a controller error ends `run` with the
/// error, and the pipeline service restarts the source after a pause, so a fault is never fatal.
public final class ScannerSource: ObservationSource {
    /// The scanner.
    public let scanner: LEScanner
    private let mapper: SightingMapper
    private let noRSSI = SharedValue(0)

    /// Creates a live source; `recorder` sees every HCI packet (`--record`).
    public init(
        transport: any HCITransport, mapper: SightingMapper, recorder: (any HCIPacketRecorder)?,
        wallClock: @escaping @Sendable () -> Double, logger: Logger
    ) {
        scanner = LEScanner(
            transport: transport, configuration: ScanConfiguration(), recorder: recorder, clock: wallClock,
            logger: logger)
        self.mapper = mapper
    }

    /// `scan:<transport>`.
    public var name: String { "scan:\(scanner.transport.name)" }

    /// The scanner's counters.
    public var statistics: SourceStatistics {
        let s = scanner.statistics
        var out = SourceStatistics()
        out.reports = s.advertisingReports
        out.malformed = s.malformed
        out.reconnects = s.reconnects
        return out
    }

    /// Sightings without RSSI skipped so far.
    public var sightingsWithoutRSSI: Int { noRSSI.withLock { $0 } }

    /// Stops the scan (scan disabled, link closed).
    public func stop() { scanner.stop() }

    /// Scans until stopped.
    public func run(_ deliver: @escaping @Sendable (Observation, Double) -> Void) async throws {
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
}
