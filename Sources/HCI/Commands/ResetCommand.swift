/// HCI_Reset: resets the controller and its link manager. No parameters; returns only a status.
///
/// Core Spec 5.4, Vol 4, Part E, §7.3.2. Opcode 0x0C03 (OGF 0x03, OCF 0x003).
public struct ResetCommand: HCICommand {
    /// OGF 0x03 (Controller & Baseband), OCF 0x003.
    public static let opcode = Opcode(ogf: Opcode.controllerBasebandGroup, ocf: 0x003)

    /// Creates the command.
    public init() {}

    /// Writes nothing: the command has no parameters.
    public func encodeParameters(into writer: inout ByteWriter) {}

    /// Accepts only empty parameters.
    public static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> ResetCommand {
        try ByteReader(parameters).expectEnd("HCI_Reset")
        return ResetCommand()
    }
}
