import HCI

/// Turns HCI packets into sightings, one per advertising report entry, and counts what it saw.
///
/// Pure: no I/O, no clock. The scanner feeds it every packet the controller sends, stamped with its clock; `bluedot
/// decode` feeds it a recording's packets stamped with their record times. A malformed event gives the entries
/// before the bad one, is counted once in `statistics.malformed`, and decoding goes on with the next packet.
/// Core Spec 5.4, Vol 4, Part E, §7.7.65.2 (LE Advertising Report) and §7.7.65.13 (LE Extended Advertising Report).
public struct SightingDecoder: Sendable {
    private var counts = ScannerStatistics()
    /// Beacon frames by kind, indexed as `Self.beaconTypes`; folded into `statistics` when it is read.
    private var beaconCounts = [Int](repeating: 0, count: SightingDecoder.beaconTypes.count)

    /// The beacon types in the order `beaconCounts` counts them.
    private static let beaconTypes = ["ibeacon", "eddystone-uid", "eddystone-url", "eddystone-tlm", "altbeacon"]

    /// Creates a decoder with zero counters.
    public init() {}

    /// What has been decoded so far (`reconnects` stays 0: only the scanner knows about links).
    public var statistics: ScannerStatistics {
        var statistics = counts
        for (type, count) in zip(Self.beaconTypes, beaconCounts) where count > 0 {
            statistics.beaconsByType[type] = count
        }
        return statistics
    }

    /// How many events or entries were malformed so far; cheaper to read per packet than `statistics`.
    public var malformedCount: Int { counts.malformed }

    /// Decodes one packet and calls `body` with each sighting in it, in report order.
    public mutating func decode(_ packet: HCIPacket, timestamp: Double, _ body: (Sighting) -> Void) {
        counts.packets += 1
        guard packet.type == .event else { return }
        counts.events += 1
        var reports = 0
        let outcome = AdvertisingReportBatch.forEachReport(in: packet) { report in
            let sighting = Sighting(report: report, timestamp: timestamp)
            reports += 1
            if let beacon = sighting.beacon { beaconCounts[Self.index(of: beacon)] += 1 }
            body(sighting)
        }
        guard let outcome else { return }
        counts.advertisingReports += reports
        if let error = outcome.error {
            counts.malformed += 1
            counts.lastError = "malformed advertising report: \(error)"
        }
    }

    /// Decodes one packet and returns its sightings, in report order.
    public mutating func decode(_ packet: HCIPacket, timestamp: Double) -> [Sighting] {
        var sightings: [Sighting] = []
        decode(packet, timestamp: timestamp) { sightings.append($0) }
        return sightings
    }

    /// The position of a frame's type in `beaconTypes`.
    private static func index(of beacon: Beacon) -> Int {
        switch beacon {
        case .iBeacon: 0
        case .eddystoneUID: 1
        case .eddystoneURL: 2
        case .eddystoneTLM: 3
        case .altBeacon: 4
        }
    }
}
