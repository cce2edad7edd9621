/// HCI_LE_Set_Advertising_Enable: starts or stops legacy advertising.
///
/// Core Spec 5.4, Vol 4, Part E, §7.8.9. Opcode 0x200A (OGF 0x08, OCF 0x00A). Returns only a status.
public struct LESetAdvertisingEnableCommand: HCICommand {
    /// OGF 0x08 (LE Controller), OCF 0x00A.
    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x00A)

    /// Advertising_Enable: true to advertise, false to stop.
    public var enable: Bool

    /// Creates the command.
    public init(enable: Bool) {
        self.enable = enable
    }

    /// Writes Advertising_Enable.
    public func encodeParameters(into writer: inout ByteWriter) {
        writer.u8(enable ? 1 : 0)
    }

    /// Reads Advertising_Enable; values other than 0x00 and 0x01 are invalid.
    public static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetAdvertisingEnableCommand {
        var reader = ByteReader(parameters)
        let enable = try reader.flag("Advertising_Enable")
        try reader.expectEnd("HCI_LE_Set_Advertising_Enable")
        return LESetAdvertisingEnableCommand(enable: enable)
    }
}
