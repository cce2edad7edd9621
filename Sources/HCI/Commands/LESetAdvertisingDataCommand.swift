/// HCI_LE_Set_Advertising_Data: the AD structures of legacy advertising PDUs.
///
/// Core Spec 5.4, Vol 4, Part E, §7.8.7. Opcode 0x2008 (OGF 0x08, OCF 0x008). Returns only a status. The
/// parameter is always 32 octets: the significant length (0...31), then 31 octets, zero-padded.
public struct LESetAdvertisingDataCommand: HCICommand {
    /// OGF 0x08 (LE Controller), OCF 0x008.
    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x008)

    /// The most data a legacy advertising PDU carries.
    public static let maximumLength = 31

    /// Advertising_Data: the significant octets (0...31 of them).
    public let data: [UInt8]
    /// The octets after them up to 31: zeros when made here, kept as read so that a decoded command re-encodes to
    /// its own bytes.
    let padding: [UInt8]

    /// Creates the command, zero-padded; nil for more than 31 octets.
    public init?(data: [UInt8]) {
        guard data.count <= Self.maximumLength else { return nil }
        self.data = data
        padding = Array(repeating: 0, count: Self.maximumLength - data.count)
    }

    private init(data: [UInt8], padding: [UInt8]) {
        self.data = data
        self.padding = padding
    }

    /// Writes Advertising_Data_Length and the 31-octet Advertising_Data.
    public func encodeParameters(into writer: inout ByteWriter) {
        writer.u8(UInt8(data.count))
        writer.append(data)
        writer.append(padding)
    }

    /// Reads the length, the significant octets and the padding (whose content the controller ignores).
    public static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESetAdvertisingDataCommand {
        var reader = ByteReader(parameters)
        let length = Int(try reader.u8("Advertising_Data_Length"))
        guard length <= maximumLength else {
            throw .invalid(field: "Advertising_Data_Length", offset: 0, reason: "\(length) exceeds \(maximumLength)")
        }
        let field = try reader.bytes(maximumLength, "Advertising_Data")
        try reader.expectEnd("HCI_LE_Set_Advertising_Data")
        return LESetAdvertisingDataCommand(data: Array(field.prefix(length)), padding: Array(field.dropFirst(length)))
    }
}
