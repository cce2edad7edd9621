import HCI

/// One advertising report entry as the controller delivered it, beacon or not, with its decoded beacon frame.
///
/// The unit the scanner emits and `bluedot decode` prints: one per entry of a (legacy or extended) LE advertising
/// report event. Core Spec 5.4, Vol 4, Part E, §7.7.65.2 and §7.7.65.13.
public struct Sighting: Sendable, Hashable {
    /// When the report arrived: Unix seconds from the scanner's clock, or the recording's timestamp.
    public var timestamp: Double
    /// The advertiser's address.
    public var address: BDAddress
    /// The advertiser's address type.
    public var addressType: BDAddressType
    /// Received signal strength in dBm; nil when the controller did not measure it (127 on the wire).
    public var rssiDBm: Int?
    /// Advertised transmit power in dBm: the extended report's TX power, else the AD TX Power Level; nil if neither.
    public var txPowerDBm: Int?
    /// The canonical id: the beacon's (`ibeacon:…`, `eddystone:…`, `altbeacon:…`), else `mac:aa:bb:cc:dd:ee:ff`.
    public var id: String
    /// Whether the advertising data is whole; not `.complete` only for fragments of extended reports.
    public var dataStatus: AdvertisingDataStatus
    /// The beacon frame found in the advertising data, nil when there is none.
    public var beacon: Beacon?

    /// Creates a sighting from its parts.
    public init(
        timestamp: Double, address: BDAddress, addressType: BDAddressType, rssiDBm: Int?, txPowerDBm: Int?,
        id: String, dataStatus: AdvertisingDataStatus = .complete, beacon: Beacon?
    ) {
        self.timestamp = timestamp
        self.address = address
        self.addressType = addressType
        self.rssiDBm = rssiDBm
        self.txPowerDBm = txPowerDBm
        self.id = id
        self.dataStatus = dataStatus
        self.beacon = beacon
    }

    /// Builds the sighting of one report entry: decodes its beacon frame and picks the id and TX power.
    ///
    /// When the data carries several beacon frames, the first one with a canonical id wins (an Eddystone-UID over
    /// the TLM frame of the same beacon), else the first frame.
    public init(report: AdvertisingReport, timestamp: Double) {
        let frames = Beacon.decode(fromAdvertisingData: report.data)
        let beacon = frames.first { $0.id != nil } ?? frames.first
        let txPower = report.txPowerDBm.map(Int.init) ?? ADStructureList(parsing: report.data).txPowerLevelDBm.map(Int.init)
        self.init(
            timestamp: timestamp, address: report.address, addressType: report.addressType,
            rssiDBm: report.rssiDBm.map(Int.init), txPowerDBm: txPower,
            id: beacon?.id ?? Self.macID(report.address), dataStatus: report.dataStatus, beacon: beacon)
    }

    /// `mac:aa:bb:cc:dd:ee:ff`: the canonical id of an advertiser that is not a known beacon.
    public static func macID(_ address: BDAddress) -> String {
        "mac:" + address.description.lowercased()
    }
}
