/// An HCI command declared as data: its opcode, and its parameters both ways.
///
/// Core Spec 5.4, Vol 4, Part E, §5.4.1 (HCI Command packet: opcode, parameter total length, parameters).
/// Each conforming type declares one command in its own file and cites the section that defines it.
public protocol HCICommand: Sendable, Hashable {
    /// The command's opcode.
    static var opcode: Opcode { get }

    /// Appends the command's parameters (not the header) to `writer`.
    func encodeParameters(into writer: inout ByteWriter)

    /// Decodes the command from its parameters (not the header); every byte must be used.
    static func decode(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> Self
}

extension HCICommand {
    /// The command's parameters as sent after the header.
    public var parameters: [UInt8] {
        var writer = ByteWriter(capacity: 16)
        encodeParameters(into: &writer)
        return writer.bytes
    }

    /// The whole command packet: opcode, parameter total length, parameters.
    ///
    /// Every command declared in this module has far fewer than 256 parameter bytes.
    public var packet: HCIPacket {
        let parameters = self.parameters
        var writer = ByteWriter(capacity: 3 + parameters.count)
        writer.u16(Self.opcode.rawValue)
        writer.u8(UInt8(truncatingIfNeeded: parameters.count))
        writer.append(parameters)
        return HCIPacket(type: .command, bytes: writer.bytes)
    }

    /// Decodes the command from a whole command packet, checking the type, opcode and length.
    public static func decode(packet: HCIPacket) throws(HCIDecodingError) -> Self {
        let generic = try HCICommandPacket.decode(packet)
        guard generic.opcode == opcode else {
            throw .invalid(field: "Opcode", offset: 0, reason: "expected \(opcode), found \(generic.opcode)")
        }
        return try decode(parameters: generic.parameters[...])
    }
}
