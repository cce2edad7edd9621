/// Any HCI command packet, split into opcode and parameters, whether or not this module declares the command.
///
/// Core Spec 5.4, Vol 4, Part E, §5.4.1 (HCI Command packet). Used to decode recordings that include the host's
/// commands: `command` gives the typed value when the opcode is one of `KnownHCICommand`'s.
public struct HCICommandPacket: Sendable, Hashable {
    /// The command's opcode.
    public var opcode: Opcode
    /// The parameters after the header.
    public var parameters: [UInt8]

    /// Creates a command packet value from its parts.
    public init(opcode: Opcode, parameters: [UInt8]) {
        self.opcode = opcode
        self.parameters = parameters
    }

    /// Splits a command packet; the parameter total length must match the bytes present.
    public static func decode(_ packet: HCIPacket) throws(HCIDecodingError) -> HCICommandPacket {
        guard packet.type == .command else {
            throw .invalid(field: "HCI packet type", offset: 0, reason: "expected a command, found \(packet.type)")
        }
        var reader = ByteReader(packet.bytes)
        let opcode = try Opcode.decode(from: &reader, "Opcode")
        let length = try reader.u8("Parameter_Total_Length")
        let parameters = try reader.bytes(Int(length), "Parameters")
        try reader.expectEnd("HCI command packet")
        return HCICommandPacket(opcode: opcode, parameters: Array(parameters))
    }

    /// The packet again: opcode, parameter total length, parameters (at most 255 bytes are sent).
    public var packet: HCIPacket {
        var writer = ByteWriter(capacity: 3 + parameters.count)
        writer.u16(opcode.rawValue)
        writer.u8(UInt8(truncatingIfNeeded: parameters.count))
        writer.append(parameters.prefix(255))
        return HCIPacket(type: .command, bytes: writer.bytes)
    }

    /// The typed command, nil when this module does not declare the opcode; throws when its parameters are malformed.
    public func command() throws(HCIDecodingError) -> KnownHCICommand? {
        try KnownHCICommand.decode(opcode: opcode, parameters: parameters[...])
    }
}
