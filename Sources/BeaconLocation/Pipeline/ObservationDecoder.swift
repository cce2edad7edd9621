import HCI
import Positioning
import Scanner

/// HCI packets to observations: the scanner's `SightingDecoder`, then `SightingMapper`, with the counts of both.
/// Recordings (replayed live or read whole by `RecordingReplay`) decode through it; a live scanner's sightings,
/// decoded by its `LEScanner`, are mapped and counted through `map(_:)` (`ScannerSource`).
public struct ObservationDecoder: Sendable {
    /// How sightings become observations.
    public let mapper: SightingMapper
    private var decoder = SightingDecoder()
    /// Sightings without an RSSI, skipped.
    public private(set) var sightingsWithoutRSSI = 0
    /// Sightings of strangers in tag mode, skipped (`DeviceIdentifier`): counted, nothing else kept.
    public private(set) var strangers = 0
    /// Observations made.
    public private(set) var observations = 0

    /// Creates a decoder mapping with `mapper`.
    public init(mapper: SightingMapper = SightingMapper()) {
        self.mapper = mapper
    }

    /// The decoder's counts: packets, reports, beacons, malformed reports.
    public var statistics: ScannerStatistics { decoder.statistics }

    /// Decodes one packet stamped `timestamp` and hands each observation it makes to `body`.
    public mutating func decode(_ packet: HCIPacket, timestamp: Double, _ body: (Observation) -> Void) {
        let mapper = mapper
        var made = 0, silent = 0, unknown = 0
        decoder.decode(packet, timestamp: timestamp) { sighting in
            if let o = mapper.observation(for: sighting) {
                made += 1
                body(o)
            } else if sighting.rssiDBm == nil {
                silent += 1
            } else {
                unknown += 1
            }
        }
        observations += made
        sightingsWithoutRSSI += silent
        strangers += unknown
    }

    /// Maps one sighting decoded elsewhere (a live scanner's), counting it.
    public mutating func map(_ sighting: Sighting) -> Observation? {
        guard let o = mapper.observation(for: sighting) else {
            if sighting.rssiDBm == nil { sightingsWithoutRSSI += 1 } else { strangers += 1 }
            return nil
        }
        observations += 1
        return o
    }
}
