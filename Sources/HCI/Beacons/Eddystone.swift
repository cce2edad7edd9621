/// Constants and dispatch shared by the Eddystone frames (google/eddystone, "Eddystone Protocol Specification").
///
/// Every Eddystone frame is Service Data for the 16-bit UUID 0xFEAA (AD type 0x16, CSS v11, Part A, §1.11) whose
/// first byte is the frame type. A correct advertisement also lists 0xFEAA among its complete 16-bit service UUIDs;
/// decoding does not insist on it.
public enum Eddystone {
    /// The Eddystone 16-bit service UUID.
    public static let serviceUUID: UInt16 = 0xFEAA
    /// Frame type of Eddystone-UID.
    public static let uidFrameType: UInt8 = 0x00
    /// Frame type of Eddystone-URL.
    public static let urlFrameType: UInt8 = 0x10
    /// Frame type of Eddystone-TLM.
    public static let tlmFrameType: UInt8 = 0x20
    /// The path loss from 0 m to 1 m that Eddystone's calibration note assumes (41 dB).
    public static let pathLossFrom0To1MeterDB: Double = 41

    /// Decodes the service data of UUID 0xFEAA (the bytes after the UUID) as one Eddystone frame.
    /// Returns nil for frame types this module does not decode (EID 0x30, reserved); throws on a malformed frame.
    public static func decode(serviceData data: ArraySlice<UInt8>) throws(HCIDecodingError) -> Beacon? {
        guard let frameType = data.first else {
            throw .truncated(field: "Eddystone frame type", offset: 0, needed: 1, available: 0)
        }
        switch frameType {
        case uidFrameType: return .eddystoneUID(try EddystoneUID(serviceData: data))
        case urlFrameType: return .eddystoneURL(try EddystoneURL(serviceData: data))
        case tlmFrameType: return .eddystoneTLM(try EddystoneTLM(serviceData: data))
        default: return nil
        }
    }
}
