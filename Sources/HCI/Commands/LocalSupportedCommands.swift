/// What HCI_Read_Local_Supported_Commands returns: a 64-octet bitmap, one bit per HCI command.
///
/// Core Spec 5.4, Vol 4, Part E, §7.4.2 (return parameters) and §6.27 (Supported Commands: octet and bit of each
/// command).
public struct LocalSupportedCommands: HCIReturnParameters {
    /// Answers HCI_Read_Local_Supported_Commands.
    public static let commandOpcode = ReadLocalSupportedCommandsCommand.opcode

    /// The number of octets in the bitmap.
    public static let octetCount = 64

    /// The Supported_Commands octets (always 64).
    public let octets: [UInt8]

    /// Creates the bitmap; nil unless there are exactly 64 octets.
    public init?(octets: [UInt8]) {
        guard octets.count == Self.octetCount else { return nil }
        self.octets = octets
    }

    /// True when bit `bit` (0...7) of octet `octet` (0...63) is set; false for positions outside the bitmap.
    public func supports(octet: Int, bit: Int) -> Bool {
        guard octets.indices.contains(octet), (0..<8).contains(bit) else { return false }
        return octets[octet] & (1 << UInt8(bit)) != 0
    }

    /// HCI_LE_Set_Extended_Scan_Parameters (octet 37, bit 5).
    public var supportsLESetExtendedScanParameters: Bool { supports(octet: 37, bit: 5) }

    /// HCI_LE_Set_Extended_Scan_Enable (octet 37, bit 6).
    public var supportsLESetExtendedScanEnable: Bool { supports(octet: 37, bit: 6) }

    /// Both extended scan commands, which a scanner needs to receive extended advertising reports.
    public var supportsExtendedScanning: Bool { supportsLESetExtendedScanParameters && supportsLESetExtendedScanEnable }

    /// Writes the 64 octets.
    public func encode(into writer: inout ByteWriter) {
        writer.append(octets)
    }

    /// Reads the 64 octets.
    public static func decode(afterStatus bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LocalSupportedCommands {
        var reader = ByteReader(bytes)
        let octets = Array(try reader.bytes(octetCount, "Supported_Commands"))
        try reader.expectEnd("Read_Local_Supported_Commands return parameters")
        guard let value = LocalSupportedCommands(octets: octets) else {
            throw .invalid(field: "Supported_Commands", offset: 0, reason: "expected \(octetCount) octets")
        }
        return value
    }
}
