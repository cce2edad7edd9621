/// HCI_Command_Status: a command was accepted (or refused) and will complete later with another event.
///
/// Core Spec 5.4, Vol 4, Part E, §7.7.15. Event code 0x0F. Parameters: Status, Num_HCI_Command_Packets,
/// Command_Opcode.
public struct CommandStatusEvent: Sendable, Hashable {
    /// The event code, 0x0F.
    public static let code: UInt8 = 0x0F

    /// Status: success when the command is pending, else why it was refused.
    public var status: HCIStatus
    /// Num_HCI_Command_Packets: how many commands the host may now send.
    public var numHCICommandPackets: UInt8
    /// Command_Opcode: the command this is about (0x0000 when the event only returns credits).
    public var opcode: Opcode

    /// Creates the event.
    public init(status: HCIStatus, numHCICommandPackets: UInt8, opcode: Opcode) {
        self.status = status
        self.numHCICommandPackets = numHCICommandPackets
        self.opcode = opcode
    }

    /// Writes Status, Num_HCI_Command_Packets and Command_Opcode.
    public func encodeParameters(into writer: inout ByteWriter) {
        writer.u8(status.rawValue)
        writer.u8(numHCICommandPackets)
        writer.u16(opcode.rawValue)
    }

    /// Reads the three parameters.
    public static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> CommandStatusEvent {
        var reader = ByteReader(parameters)
        let status = HCIStatus(rawValue: try reader.u8("Status"))
        let credits = try reader.u8("Num_HCI_Command_Packets")
        let opcode = try Opcode.decode(from: &reader, "Command_Opcode")
        try reader.expectEnd("HCI_Command_Status")
        return CommandStatusEvent(status: status, numHCICommandPackets: credits, opcode: opcode)
    }
}
