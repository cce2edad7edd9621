/// An HCI status or error code, as commands return it; unknown values are kept as received.
///
/// Core Spec 5.4, Vol 1, Part F, §1.3 (list of error codes). 0x00 is success.
public struct HCIStatus: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The byte as sent on the wire.
    public let rawValue: UInt8

    /// Creates a status from its wire value.
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x00: the command succeeded.
    public static let success = HCIStatus(rawValue: 0x00)
    /// 0x01: Unknown HCI Command.
    public static let unknownCommand = HCIStatus(rawValue: 0x01)
    /// 0x0C: Command Disallowed.
    public static let commandDisallowed = HCIStatus(rawValue: 0x0C)
    /// 0x11: Unsupported Feature or Parameter Value.
    public static let unsupportedFeature = HCIStatus(rawValue: 0x11)
    /// 0x12: Invalid HCI Command Parameters.
    public static let invalidParameters = HCIStatus(rawValue: 0x12)

    /// True for 0x00.
    public var isSuccess: Bool { rawValue == 0 }

    /// `success` or `error 0xNN`.
    public var description: String {
        isSuccess ? "success" : "error 0x" + Opcode.hex(UInt64(rawValue), width: 2)
    }
}
