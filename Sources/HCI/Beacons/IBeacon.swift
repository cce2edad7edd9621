import BlueDotCore
import JSON

/// An Apple iBeacon frame: Manufacturer Specific Data of Apple (company 0x004C) with beacon type 0x02, length 0x15.
///
/// Layout after the company identifier (Apple, "Proximity Beacon Specification" R1, 2015, §"iBeacon advertising
/// packet"): type 0x02, length 0x15, proximity UUID (16 bytes, big-endian), major and minor (big-endian), and the
/// measured power at 1 m (signed dBm). Carried in an AD structure of type 0xFF (CSS v11, Part A, §1.4).
public struct IBeacon: Sendable, Hashable {
    /// Apple's company identifier (Bluetooth Assigned Numbers, company identifiers).
    public static let appleCompanyID: UInt16 = 0x004C
    /// The iBeacon type octet after the company identifier.
    public static let beaconType: UInt8 = 0x02
    /// The length octet after the type: 21 bytes follow.
    public static let payloadLength: UInt8 = 0x15

    /// The proximity UUID, as printed (big-endian on the wire).
    public var proximityUUID: BluetoothUUID
    /// The major number.
    public var major: UInt16
    /// The minor number.
    public var minor: UInt16
    /// The RSSI in dBm the sender expects at 1 m.
    public var measuredPowerDBm: Int8

    /// Creates a frame from its fields.
    public init(proximityUUID: BluetoothUUID, major: UInt16, minor: UInt16, measuredPowerDBm: Int8) {
        self.proximityUUID = proximityUUID
        self.major = major
        self.minor = minor
        self.measuredPowerDBm = measuredPowerDBm
    }

    /// Decodes Manufacturer Specific Data; throws unless it is Apple's and holds exactly one iBeacon frame.
    public init(companyID: UInt16, data: ArraySlice<UInt8>) throws(HCIDecodingError) {
        guard companyID == Self.appleCompanyID else {
            throw .invalid(field: "iBeacon company identifier", offset: 0, reason: "not Apple (0x004c)")
        }
        var r = ByteReader(data)
        guard try r.u8("iBeacon type") == Self.beaconType else {
            throw .invalid(field: "iBeacon type", offset: 0, reason: "not 0x02")
        }
        guard try r.u8("iBeacon length") == Self.payloadLength else {
            throw .invalid(field: "iBeacon length", offset: 1, reason: "not 0x15")
        }
        proximityUUID = try BluetoothUUID(bigEndianBytes: try r.bytes(16, "iBeacon proximity UUID"))
        major = try r.u16BigEndian("iBeacon major")
        minor = try r.u16BigEndian("iBeacon minor")
        measuredPowerDBm = try r.i8("iBeacon measured power")
        try r.expectEnd("iBeacon")
    }

    /// The Manufacturer Specific Data after the company identifier.
    public var manufacturerData: [UInt8] {
        var w = ByteWriter(capacity: 23)
        w.u8(Self.beaconType)
        w.u8(Self.payloadLength)
        w.append(proximityUUID.bigEndianBytes)
        w.u16BigEndian(major)
        w.u16BigEndian(minor)
        w.i8(measuredPowerDBm)
        return w.bytes
    }

    /// The frame as an AD structure.
    public var adStructure: ADStructure {
        .manufacturerData(companyID: Self.appleCompanyID, data: manufacturerData)
    }

    /// The canonical id `ibeacon:<uuid>:<major>:<minor>` (formats.md).
    public var canonicalID: String { JSONText.text(estimatedBytes: 64) { writeCanonicalID(to: &$0) } }

    /// Writes the canonical id.
    public func writeCanonicalID(to w: inout JSONWriter) {
        w.literal("ibeacon:")
        proximityUUID.writeDescription(to: &w)
        w.byte(UInt8(ascii: ":"))
        w.digits(UInt64(major))
        w.byte(UInt8(ascii: ":"))
        w.digits(UInt64(minor))
    }
}
