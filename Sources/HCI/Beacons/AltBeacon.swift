import BlueDotCore
import JSON

/// An AltBeacon frame: Manufacturer Specific Data of any company beginning with the beacon code 0xBE 0xAC.
///
/// Layout after the company identifier (AltBeacon Protocol Specification v1.0, Radius Networks, 2014,
/// "AltBeacon Advertisement"): beacon code 0xBEAC (2 bytes, big-endian), beacon id (20 bytes: here id1 = 16,
/// id2 = 2, id3 = 2, big-endian), reference RSSI at 1 m (signed dBm), manufacturer-reserved byte.
/// Carried in an AD structure of type 0xFF (CSS v11, Part A, §1.4).
public struct AltBeacon: Sendable, Hashable {
    /// The beacon code that marks an AltBeacon advertisement.
    public static let beaconCode: UInt16 = 0xBEAC

    /// The company identifier of the manufacturer data (any company may send AltBeacons).
    public var companyID: UInt16
    /// The first 16 bytes of the beacon id, commonly printed as a UUID.
    public var id1: BluetoothUUID
    /// Bytes 17 and 18 of the beacon id.
    public var id2: UInt16
    /// Bytes 19 and 20 of the beacon id.
    public var id3: UInt16
    /// The RSSI in dBm the sender expects at 1 m.
    public var referenceRSSIDBm: Int8
    /// The manufacturer-reserved byte.
    public var manufacturerReserved: UInt8

    /// Creates a frame from its fields.
    public init(
        companyID: UInt16, id1: BluetoothUUID, id2: UInt16, id3: UInt16, referenceRSSIDBm: Int8,
        manufacturerReserved: UInt8 = 0
    ) {
        self.companyID = companyID
        self.id1 = id1
        self.id2 = id2
        self.id3 = id3
        self.referenceRSSIDBm = referenceRSSIDBm
        self.manufacturerReserved = manufacturerReserved
    }

    /// Decodes Manufacturer Specific Data; throws unless it holds exactly one AltBeacon frame.
    public init(companyID: UInt16, data: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var r = ByteReader(data)
        guard try r.u16BigEndian("AltBeacon beacon code") == Self.beaconCode else {
            throw .invalid(field: "AltBeacon beacon code", offset: 0, reason: "not 0xbeac")
        }
        self.companyID = companyID
        id1 = try BluetoothUUID(bigEndianBytes: try r.bytes(16, "AltBeacon id1"))
        id2 = try r.u16BigEndian("AltBeacon id2")
        id3 = try r.u16BigEndian("AltBeacon id3")
        referenceRSSIDBm = try r.i8("AltBeacon reference RSSI")
        manufacturerReserved = try r.u8("AltBeacon manufacturer reserved")
        try r.expectEnd("AltBeacon")
    }

    /// The Manufacturer Specific Data after the company identifier.
    public var manufacturerData: [UInt8] {
        var w = ByteWriter(capacity: 24)
        w.u16BigEndian(Self.beaconCode)
        w.append(id1.bigEndianBytes)
        w.u16BigEndian(id2)
        w.u16BigEndian(id3)
        w.i8(referenceRSSIDBm)
        w.u8(manufacturerReserved)
        return w.bytes
    }

    /// The frame as an AD structure.
    public var adStructure: ADStructure { .manufacturerData(companyID: companyID, data: manufacturerData) }

    /// The canonical id `altbeacon:<id1, 32 hex>:<id2>:<id3>` (formats.md), id2 and id3 in decimal.
    public var canonicalID: String { JSONText.text(estimatedBytes: 64) { writeCanonicalID(to: &$0) } }

    /// Writes the canonical id.
    public func writeCanonicalID(to w: inout JSONWriter) {
        w.literal("altbeacon:")
        id1.writeHexDigits(to: &w)
        w.byte(UInt8(ascii: ":"))
        w.digits(UInt64(id2))
        w.byte(UInt8(ascii: ":"))
        w.digits(UInt64(id3))
    }
}
