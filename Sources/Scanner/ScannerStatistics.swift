/// Counters of what a scanner or a recording decode has seen: readable at any time as a snapshot.
public struct ScannerStatistics: Sendable, Hashable {
    /// HCI packets received from the controller (or read from a recording, both directions).
    public var packets: Int = 0
    /// HCI event packets among them.
    public var events: Int = 0
    /// Advertising report entries decoded (legacy and extended), beacon or not.
    public var advertisingReports: Int = 0
    /// Beacon frames decoded, by type (`ibeacon`, `eddystone-uid`, `eddystone-url`, `eddystone-tlm`, `altbeacon`).
    public var beaconsByType: [String: Int] = [:]
    /// Advertising events or report entries that could not be decoded and were skipped.
    public var malformed: Int = 0
    /// Times the link to the controller came back after it dropped.
    public var reconnects: Int = 0
    /// Times the scan was got back, by what was done and why (`LEScanner`'s supervision): re-armed after another
    /// program's scan command or Reset, or after a stall; the link reopened when a stall outlasted a re-arm or a
    /// re-arm failed. A dropped link that came back is in `reconnects` instead.
    public var scanRecoveries: [ScanRecovery: Int] = [:]
    /// The last error met (a dropped link, a malformed report), for display; nil when none.
    public var lastError: String?

    /// Creates empty counters.
    public init() {}

    /// The total number of beacon frames, all types together.
    public var beacons: Int { beaconsByType.values.reduce(0, +) }

    /// `packets=10 events=9 reports=7 beacons=3 (ibeacon=2 altbeacon=1) malformed=0 reconnects=0`.
    public var summary: String {
        let types = beaconsByType.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        var text = "packets=\(packets) events=\(events) reports=\(advertisingReports) beacons=\(beacons)"
        if !types.isEmpty { text += " (\(types))" }
        text += " malformed=\(malformed) reconnects=\(reconnects)"
        if let lastError { text += " lastError=\"\(lastError)\"" }
        return text
    }
}
