/// HCI_Set_Event_Mask: chooses which events the controller may send (bit n enables one event; see the table).
///
/// Core Spec 5.4, Vol 4, Part E, §7.3.1. Opcode 0x0C01 (OGF 0x03, OCF 0x001). Returns only a status.
public struct SetEventMaskCommand: HCICommand {
    /// OGF 0x03 (Controller & Baseband), OCF 0x001.
    public static let opcode = Opcode(ogf: Opcode.controllerBasebandGroup, ocf: 0x001)

    /// The 64-bit Event_Mask.
    public var eventMask: UInt64

    /// Bit 61 (counting from 0): the LE Meta event, needed for every LE advertising report.
    public static let leMetaEventBit: UInt64 = 1 << 61

    /// The default mask after reset (0x00001FFFFFFFFFFF) with the LE Meta event enabled as well.
    public static let defaultWithLEMeta = SetEventMaskCommand(eventMask: 0x0000_1FFF_FFFF_FFFF | leMetaEventBit)

    /// Creates the command with a mask.
    public init(eventMask: UInt64) {
        self.eventMask = eventMask
    }

    /// Writes Event_Mask (8 bytes, little-endian).
    public func encodeParameters(into writer: inout ByteWriter) {
        writer.u64(eventMask)
    }

    /// Reads Event_Mask.
    public static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> SetEventMaskCommand {
        var reader = ByteReader(parameters)
        let mask = try reader.u64("Event_Mask")
        try reader.expectEnd("HCI_Set_Event_Mask")
        return SetEventMaskCommand(eventMask: mask)
    }
}
