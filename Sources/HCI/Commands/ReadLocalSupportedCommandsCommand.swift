/// HCI_Read_Local_Supported_Commands: asks which HCI commands the controller supports.
///
/// Core Spec 5.4, Vol 4, Part E, §7.4.2. Opcode 0x1002 (OGF 0x04, OCF 0x002). No parameters; the Command Complete
/// event returns `LocalSupportedCommands`.
public struct ReadLocalSupportedCommandsCommand: HCICommand {
    /// OGF 0x04 (Informational), OCF 0x002.
    public static let opcode = Opcode(ogf: Opcode.informationalGroup, ocf: 0x002)

    /// Creates the command.
    public init() {}

    /// Writes nothing: the command has no parameters.
    public func encodeParameters(into writer: inout ByteWriter) {}

    /// Accepts only empty parameters.
    public static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> ReadLocalSupportedCommandsCommand {
        try ByteReader(parameters).expectEnd("HCI_Read_Local_Supported_Commands")
        return ReadLocalSupportedCommandsCommand()
    }
}
