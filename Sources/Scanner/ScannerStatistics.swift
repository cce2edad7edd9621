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
    /// Times the scan was set up again after another program on the adapter sent a scan enable command
    /// (`hcitool`, `bluetoothctl scan off`, the end of bluetoothd's discovery).
    public var scanRearms: Int = 0
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
