import HCI

/// Turns HCI packets into sightings, one per advertising report entry, and counts what it saw.
///
/// Pure: no I/O, no clock. The scanner feeds it every packet the controller sends, stamped with its clock; `bluedot
/// decode` feeds it a recording's packets stamped with their record times. A malformed event gives the entries
/// before the bad one, is counted once in `statistics.malformed`, and decoding goes on with the next packet.
/// Core Spec 5.4, Vol 4, Part E, §7.7.65.2 (LE Advertising Report) and §7.7.65.13 (LE Extended Advertising Report).
public struct SightingDecoder: Sendable {
    /// What has been decoded so far (`reconnects` stays 0: only the scanner knows about links).
    public private(set) var statistics = ScannerStatistics()

    /// Creates a decoder with zero counters.
    public init() {}

    /// Decodes one packet and calls `body` with each sighting in it, in report order.
    public mutating func decode(_ packet: HCIPacket, timestamp: Double, _ body: (Sighting) -> Void) {
        statistics.packets += 1
        guard packet.type == .event else { return }
        statistics.events += 1
        var reports = 0
        var beaconsByType: [String: Int] = [:]
        let outcome = AdvertisingReportBatch.forEachReport(in: packet) { report in
            let sighting = Sighting(report: report, timestamp: timestamp)
            reports += 1
            if let beacon = sighting.beacon { beaconsByType[beacon.type, default: 0] += 1 }
            body(sighting)
        }
        guard let outcome else { return }
        statistics.advertisingReports += reports
        for (type, count) in beaconsByType { statistics.beaconsByType[type, default: 0] += count }
        if let error = outcome.error {
            statistics.malformed += 1
            statistics.lastError = "malformed advertising report: \(error)"
        }
    }

    /// Decodes one packet and returns its sightings, in report order.
    public mutating func decode(_ packet: HCIPacket, timestamp: Double) -> [Sighting] {
        var sightings: [Sighting] = []
        decode(packet, timestamp: timestamp) { sightings.append($0) }
        return sightings
    }
}
