/// HCI_LE_Set_Extended_Advertising_Data: the AD structures of one advertising set, in one or more fragments.
///
/// Core Spec 5.4, Vol 4, Part E, §7.8.54. Opcode 0x2037 (OGF 0x08, OCF 0x037). Returns only a status. One
/// command carries at most 251 octets; a set with legacy PDUs takes at most 31.
public struct LESetExtendedAdvertisingDataCommand: HCICommand {
    /// OGF 0x08 (LE Controller), OCF 0x037.
    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x037)

    /// The most data one command carries.
    public static let maximumFragmentLength = 251
    /// Operation: the complete data in this one command.
    public static let completeData: UInt8 = 0x03
    /// Fragment_Preference: the controller should not fragment the data.
    public static let noFragmentation: UInt8 = 0x01

    /// Advertising_Handle.
    public let handle: UInt8
    /// Operation: 0x00 intermediate, 0x01 first, 0x02 last fragment, 0x03 complete, 0x04 unchanged.
    public let operation: UInt8
    /// Fragment_Preference: 0x00 the controller may fragment, 0x01 should not.
    public let fragmentPreference: UInt8
    /// Advertising_Data.
    public let data: [UInt8]

    /// Creates the command; nil for more than 251 octets.
    public init?(handle: UInt8 = 0, operation: UInt8 = completeData, fragmentPreference: UInt8 = noFragmentation,
                 data: [UInt8]) {
        guard data.count <= Self.maximumFragmentLength else { return nil }
        self.handle = handle
        self.operation = operation
        self.fragmentPreference = fragmentPreference
        self.data = data
    }

    /// Writes the handle, operation, preference, length and data.
    public func encodeParameters(into writer: inout ByteWriter) {
        writer.u8(handle)
        writer.u8(operation)
        writer.u8(fragmentPreference)
        writer.u8(UInt8(data.count))
        writer.append(data)
    }

    /// Reads the five parameters.
    public static func decode(
        parameters: ArraySlice<UInt8>
    ) throws(HCIDecodingError) -> LESetExtendedAdvertisingDataCommand {
        var reader = ByteReader(parameters)
        let handle = try reader.u8("Advertising_Handle")
        let operation = try reader.u8("Operation")
        let preference = try reader.u8("Fragment_Preference")
        let length = Int(try reader.u8("Advertising_Data_Length"))
        guard length <= maximumFragmentLength else {
            throw .invalid(field: "Advertising_Data_Length", offset: 3, reason: "\(length) exceeds \(maximumFragmentLength)")
        }
        let data = Array(try reader.bytes(length, "Advertising_Data"))
        try reader.expectEnd("HCI_LE_Set_Extended_Advertising_Data")
        return LESetExtendedAdvertisingDataCommand(handle: handle, operation: operation, fragmentPreference: preference,
                                                   data: data)!
    }
}
