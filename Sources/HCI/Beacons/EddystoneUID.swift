import BlueDotCore
import JSON

/// An Eddystone-UID frame (frame type 0x00): a 10-byte namespace and a 6-byte instance.
///
/// google/eddystone, "eddystone-uid/README.md": frame type, ranging data (calibrated TX power at 0 m, signed dBm),
/// namespace (10 bytes), instance (6 bytes), then 2 reserved bytes that must be 0x00. Frames without the reserved
/// bytes are seen in the wild and accepted. Carried as Service Data of UUID 0xFEAA (CSS v11, Part A, §1.11).
public struct EddystoneUID: Sendable, Hashable {
    /// The calibrated TX power at 0 m in dBm (ranging data).
    public var txPowerAt0mDBm: Int8
    /// The 10-byte namespace.
    public var namespace: [UInt8]
    /// The 6-byte instance.
    public var instance: [UInt8]

    /// Creates a frame; throws unless `namespace` has 10 bytes and `instance` 6.
    public init(txPowerAt0mDBm: Int8, namespace: [UInt8], instance: [UInt8]) throws(HCIDecodingError) {
        guard namespace.count == 10 else {
            throw .invalid(field: "Eddystone-UID namespace", offset: 2, reason: "\(namespace.count) bytes, not 10")
        }
        guard instance.count == 6 else {
            throw .invalid(field: "Eddystone-UID instance", offset: 12, reason: "\(instance.count) bytes, not 6")
        }
        self.txPowerAt0mDBm = txPowerAt0mDBm
        self.namespace = namespace
        self.instance = instance
    }

    /// Decodes the service data after the UUID, starting with the frame type.
    public init(serviceData data: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var r = ByteReader(data)
        guard try r.u8("Eddystone frame type") == Eddystone.uidFrameType else {
            throw .invalid(field: "Eddystone frame type", offset: 0, reason: "not UID (0x00)")
        }
        txPowerAt0mDBm = try r.i8("Eddystone-UID ranging data")
        namespace = Array(try r.bytes(10, "Eddystone-UID namespace"))
        instance = Array(try r.bytes(6, "Eddystone-UID instance"))
        if !r.isAtEnd { _ = try r.bytes(2, "Eddystone-UID reserved") }
        try r.expectEnd("Eddystone-UID")
    }

    /// The service data after the UUID, with the two reserved bytes.
    public var serviceData: [UInt8] {
        var w = ByteWriter(capacity: 20)
        w.u8(Eddystone.uidFrameType)
        w.i8(txPowerAt0mDBm)
        w.append(namespace)
        w.append(instance)
        w.u16(0)
        return w.bytes
    }

    /// The frame as an AD structure.
    public var adStructure: ADStructure { .serviceData16(uuid: Eddystone.serviceUUID, data: serviceData) }

    /// The canonical id `eddystone:<namespace, 20 hex>:<instance, 12 hex>` (formats.md).
    public var canonicalID: String { JSONText.text(estimatedBytes: 64) { writeCanonicalID(to: &$0) } }

    /// Writes the canonical id.
    public func writeCanonicalID(to w: inout JSONWriter) {
        w.literal("eddystone:")
        for b in namespace { w.hex(b) }
        w.byte(UInt8(ascii: ":"))
        for b in instance { w.hex(b) }
    }
}
