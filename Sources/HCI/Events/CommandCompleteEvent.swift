/// HCI_Command_Complete: a command finished; carries its return parameters and new command credits.
///
/// Core Spec 5.4, Vol 4, Part E, §7.7.14. Event code 0x0E. Parameters: Num_HCI_Command_Packets, Command_Opcode,
/// Return_Parameters (the command's own; for every command declared here they begin with a status byte).
public struct CommandCompleteEvent: Sendable, Hashable {
    /// The event code, 0x0E.
    public static let code: UInt8 = 0x0E

    /// Num_HCI_Command_Packets: how many commands the host may now send.
    public var numHCICommandPackets: UInt8
    /// Command_Opcode: the command that completed (0x0000 when the event only returns credits).
    public var opcode: Opcode
    /// Return_Parameters as received, the status byte included.
    public var returnParameters: [UInt8]

    /// Creates the event from its raw parts.
    public init(numHCICommandPackets: UInt8, opcode: Opcode, returnParameters: [UInt8]) {
        self.numHCICommandPackets = numHCICommandPackets
        self.opcode = opcode
        self.returnParameters = returnParameters
    }

    /// Creates the event answering `R`'s command with a status and typed return parameters.
    public init<R: HCIReturnParameters>(numHCICommandPackets: UInt8 = 1, status: HCIStatus = .success, returning value: R) {
        var writer = ByteWriter(capacity: 16)
        writer.u8(status.rawValue)
        value.encode(into: &writer)
        self.init(numHCICommandPackets: numHCICommandPackets, opcode: R.commandOpcode, returnParameters: writer.bytes)
    }

    /// The status: the first return parameter byte, nil when there are none.
    public var status: HCIStatus? {
        returnParameters.first.map(HCIStatus.init(rawValue:))
    }

    /// Decodes the typed return parameters of `R`'s command, after checking the opcode and a success status.
    public func returnParameters<R: HCIReturnParameters>(as type: R.Type) throws(HCIDecodingError) -> R {
        guard opcode == R.commandOpcode else {
            throw .invalid(field: "Command_Opcode", offset: 1, reason: "expected \(R.commandOpcode), found \(opcode)")
        }
        var reader = ByteReader(returnParameters)
        let status = HCIStatus(rawValue: try reader.u8("Status"))
        guard status.isSuccess else {
            throw .invalid(field: "Status", offset: 0, reason: "command \(opcode) failed: \(status)")
        }
        return try R.decode(afterStatus: reader.rest())
    }

    /// Writes Num_HCI_Command_Packets, Command_Opcode and Return_Parameters.
    public func encodeParameters(into writer: inout ByteWriter) {
        writer.u8(numHCICommandPackets)
        writer.u16(opcode.rawValue)
        writer.append(returnParameters)
    }

    /// Reads the event's parameters; the return parameters are whatever follows the opcode.
    public static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> CommandCompleteEvent {
        var reader = ByteReader(parameters)
        let credits = try reader.u8("Num_HCI_Command_Packets")
        let opcode = try Opcode.decode(from: &reader, "Command_Opcode")
        return CommandCompleteEvent(numHCICommandPackets: credits, opcode: opcode, returnParameters: Array(reader.rest()))
    }
}
