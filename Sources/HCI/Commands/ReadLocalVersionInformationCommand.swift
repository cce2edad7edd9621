/// HCI_Read_Local_Version_Information: asks for the controller's HCI and LMP versions and manufacturer.
///
/// Core Spec 5.4, Vol 4, Part E, §7.4.1. Opcode 0x1001 (OGF 0x04, OCF 0x001). No parameters; the Command Complete
/// event returns `LocalVersionInformation`.
public struct ReadLocalVersionInformationCommand: HCICommand {
    /// OGF 0x04 (Informational), OCF 0x001.
    public static let opcode = Opcode(ogf: Opcode.informationalGroup, ocf: 0x001)

    /// Creates the command.
    public init() {}

    /// Writes nothing: the command has no parameters.
    public func encodeParameters(into writer: inout ByteWriter) {}

    /// Accepts only empty parameters.
    public static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> ReadLocalVersionInformationCommand {
        try ByteReader(parameters).expectEnd("HCI_Read_Local_Version_Information")
        return ReadLocalVersionInformationCommand()
    }
}
