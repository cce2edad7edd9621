/// The typed return parameters of one command, as a Command Complete event carries them after the status byte.
///
/// Core Spec 5.4, Vol 4, Part E, §7.7.14 (Command Complete: Return_Parameters begin with the command's status).
/// Conforming types decode and encode the bytes after the status; `CommandCompleteEvent.returnParameters(as:)`
/// checks the opcode and the status first.
public protocol HCIReturnParameters: Sendable, Hashable {
    /// The opcode of the command these parameters answer.
    static var commandOpcode: Opcode { get }

    /// Appends the parameters that follow the status byte.
    func encode(into writer: inout ByteWriter)

    /// Decodes the parameters that follow the status byte; every byte must be used.
    static func decode(afterStatus bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> Self
}
