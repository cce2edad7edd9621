import BlueDotCore
import HCI
import JSON

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
    /// Whether the advertising data is whole; not `.complete` only for fragments of extended reports.
    public var dataStatus: AdvertisingDataStatus
    /// The beacon frame found in the advertising data, nil when there is none.
    public var beacon: Beacon?

    /// Creates a sighting from its parts.
    public init(
        timestamp: Double, address: BDAddress, addressType: BDAddressType, rssiDBm: Int?, txPowerDBm: Int?,
        dataStatus: AdvertisingDataStatus = .complete, beacon: Beacon?
    ) {
        self.timestamp = timestamp
        self.address = address
        self.addressType = addressType
        self.rssiDBm = rssiDBm
        self.txPowerDBm = txPowerDBm
        self.dataStatus = dataStatus
        self.beacon = beacon
    }

    /// Builds the sighting of one report entry: decodes its beacon frame and picks the TX power.
    ///
    /// When the data carries several beacon frames, the first one with a canonical id wins (an Eddystone-UID over
    /// the TLM frame of the same beacon), else the first frame. One pass over the AD structures, no arrays: this
    /// runs for every report a controller delivers.
    public init(report: AdvertisingReport, timestamp: Double) {
        var reader = ADElementReader(report.data)
        var first: Beacon?
        var identified: Beacon?
        var advertisedTxPower: Int8?
        while let element = try? reader.next() {
            if element.type == .txPowerLevel, advertisedTxPower == nil, let level = element.data.first {
                advertisedTxPower = Int8(bitPattern: level)
            } else if identified == nil, let beacon = Beacon.decode(element: element) {
                if first == nil { first = beacon }
                if beacon.hasCanonicalID { identified = beacon }
            }
        }
        self.init(
            timestamp: timestamp, address: report.address, addressType: report.addressType,
            rssiDBm: report.rssiDBm.map(Int.init), txPowerDBm: (report.txPowerDBm ?? advertisedTxPower).map(Int.init),
            dataStatus: report.dataStatus, beacon: identified ?? first)
    }

    /// The canonical id: the beacon's (`ibeacon:…`, `eddystone:…`, `altbeacon:…`), else `mac:aa:bb:cc:dd:ee:ff`.
    ///
    /// Built when asked for, so that decoding does not pay for strings nobody reads.
    public var id: String {
        JSONText.text(estimatedBytes: 64) { writeID(to: &$0) }
    }

    /// Writes the canonical id.
    public func writeID(to w: inout JSONWriter) {
        if let beacon, beacon.writeID(to: &w) { return }
        Self.writeMacID(address, to: &w)
    }

    /// `mac:aa:bb:cc:dd:ee:ff`: the canonical id of an advertiser that is not a known beacon.
    public static func macID(_ address: BDAddress) -> String {
        JSONText.text(estimatedBytes: 21) { writeMacID(address, to: &$0) }
    }

    private static func writeMacID(_ address: BDAddress, to w: inout JSONWriter) {
        w.literal("mac:")
        address.writeDescription(uppercase: false, to: &w)
    }
}
