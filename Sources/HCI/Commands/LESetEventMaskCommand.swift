/// HCI_LE_Set_Event_Mask: chooses which LE Meta subevents the controller may send.
///
/// Core Spec 5.4, Vol 4, Part E, §7.8.1. Opcode 0x2001 (OGF 0x08, OCF 0x001). Returns only a status.
/// Bit n (from 0) enables subevent n + 1: bit 1 is LE Advertising Report, bit 12 LE Extended Advertising Report.
public struct LESetEventMaskCommand: HCICommand {
    /// OGF 0x08 (LE Controller), OCF 0x001.
    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x001)

    /// The 64-bit LE_Event_Mask.
    public var leEventMask: UInt64

    /// Bit 1: LE Advertising Report (subevent 0x02).
    public static let advertisingReportBit: UInt64 = 1 << 1
    /// Bit 12: LE Extended Advertising Report (subevent 0x0D).
    public static let extendedAdvertisingReportBit: UInt64 = 1 << 12

    /// Creates the command with a mask.
    public init(leEventMask: UInt64) {
        self.leEventMask = leEventMask
    }

    /// Writes LE_Event_Mask (8 bytes, little-endian).
    public func encodeParameters(into writer: inout ByteWriter) {
        writer.u64(leEventMask)
    }

    /// Reads LE_Event_Mask.
    public static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetEventMaskCommand {
        var reader = ByteReader(parameters)
        let mask = try reader.u64("LE_Event_Mask")
        try reader.expectEnd("HCI_LE_Set_Event_Mask")
        return LESetEventMaskCommand(leEventMask: mask)
    }
}
