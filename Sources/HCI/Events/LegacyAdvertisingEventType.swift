/// The advertising PDU type of a legacy LE Advertising Report; unknown values are kept as received.
///
/// Core Spec 5.4, Vol 4, Part E, §7.7.65.2 (Event_Type).
public struct LegacyAdvertisingEventType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The byte as sent on the wire.
    public let rawValue: UInt8

    /// Creates a type from its wire value.
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// ADV_IND (0x00): connectable and scannable undirected advertising.
    public static let advInd = LegacyAdvertisingEventType(rawValue: 0x00)
    /// ADV_DIRECT_IND (0x01): connectable directed advertising.
    public static let advDirectInd = LegacyAdvertisingEventType(rawValue: 0x01)
    /// ADV_SCAN_IND (0x02): scannable undirected advertising.
    public static let advScanInd = LegacyAdvertisingEventType(rawValue: 0x02)
    /// ADV_NONCONN_IND (0x03): non-connectable undirected advertising (most beacons).
    public static let advNonconnInd = LegacyAdvertisingEventType(rawValue: 0x03)
    /// SCAN_RSP (0x04): a scan response.
    public static let scanRsp = LegacyAdvertisingEventType(rawValue: 0x04)

    /// The equivalent extended event properties (legacy bit set), per the table in §7.7.65.13; nil when unknown.
    ///
    /// A SCAN_RSP maps to "scan response to an ADV_IND" (0x1B): the legacy report does not say to which.
    public var extendedProperties: AdvertisingEventProperties? {
        switch rawValue {
        case 0x00: AdvertisingEventProperties(rawValue: 0b001_0011)
        case 0x01: AdvertisingEventProperties(rawValue: 0b001_0101)
        case 0x02: AdvertisingEventProperties(rawValue: 0b001_0010)
        case 0x03: AdvertisingEventProperties(rawValue: 0b001_0000)
        case 0x04: AdvertisingEventProperties(rawValue: 0b001_1011)
        default: nil
        }
    }

    /// The PDU name (`ADV_IND`...) or `0xNN`.
    public var description: String {
        switch rawValue {
        case 0x00: "ADV_IND"
        case 0x01: "ADV_DIRECT_IND"
        case 0x02: "ADV_SCAN_IND"
        case 0x03: "ADV_NONCONN_IND"
        case 0x04: "SCAN_RSP"
        default: "0x" + Opcode.hex(UInt64(rawValue), width: 2)
        }
    }
}
