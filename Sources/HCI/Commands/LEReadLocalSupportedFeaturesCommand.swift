/// HCI_LE_Read_Local_Supported_Features: asks which LE features the controller supports.
///
/// Core Spec 5.4, Vol 4, Part E, §7.8.3. Opcode 0x2003 (OGF 0x08, OCF 0x003). No parameters; the Command Complete
/// event returns `LESupportedFeatures`.
public struct LEReadLocalSupportedFeaturesCommand: HCICommand {
    /// OGF 0x08 (LE Controller), OCF 0x003.
    public static let opcode = Opcode(ogf: Opcode.leControllerGroup, ocf: 0x003)

    /// Creates the command.
    public init() {}

    /// Writes nothing: the command has no parameters.
    public func encodeParameters(into writer: inout ByteWriter) {}

    /// Accepts only empty parameters.
    public static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> LEReadLocalSupportedFeaturesCommand {
        try ByteReader(parameters).expectEnd("HCI_LE_Read_Local_Supported_Features")
        return LEReadLocalSupportedFeaturesCommand()
    }
}
