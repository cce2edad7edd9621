/// What HCI_LE_Read_Local_Supported_Features returns: the 64-bit LE feature mask.
///
/// Core Spec 5.4, Vol 4, Part E, §7.8.3 (return parameters) and Vol 6, Part B, §4.6 (feature bits).
public struct LESupportedFeatures: HCIReturnParameters {
    /// Answers HCI_LE_Read_Local_Supported_Features.
    public static let commandOpcode = LEReadLocalSupportedFeaturesCommand.opcode

    /// LE_Features, bit 0 first.
    public var mask: UInt64

    /// Creates the value from the mask.
    public init(mask: UInt64) { self.mask = mask }

    /// True when feature bit `bit` (0...63) is set.
    public func contains(bit: Int) -> Bool {
        guard (0..<64).contains(bit) else { return false }
        return mask & (1 << UInt64(bit)) != 0
    }

    /// LE Coded PHY (bit 11): long-range reception on the coded PHY.
    public var supportsCodedPHY: Bool { contains(bit: 11) }

    /// LE Extended Advertising (bit 12): extended scan commands and extended advertising reports.
    public var supportsExtendedAdvertising: Bool { contains(bit: 12) }

    /// Writes LE_Features (8 bytes, little-endian).
    public func encode(into writer: inout ByteWriter) {
        writer.u64(mask)
    }

    /// Reads LE_Features.
    public static func decode(afterStatus bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> LESupportedFeatures {
        var reader = ByteReader(bytes)
        let mask = try reader.u64("LE_Features")
        try reader.expectEnd("LE_Read_Local_Supported_Features return parameters")
        return LESupportedFeatures(mask: mask)
    }
}
