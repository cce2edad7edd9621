import HCI

/// Why the scanner stopped or a controller session failed. Every case names the command, field or link involved.
public enum ScannerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The controller did not answer a command within its deadline.
    case commandTimedOut(command: String, timeout: Duration)
    /// The controller answered a command with a non-success status.
    case commandFailed(command: String, status: HCIStatus)
    /// The controller's answer to a command could not be decoded.
    case malformedReply(command: String, reason: String)
    /// A scan setting is outside the range the specification allows.
    case invalidConfiguration(field: String, reason: String)
    /// The link to the controller could not be opened.
    case transportUnavailable(transport: String, reason: String)
    /// The link to the controller closed or failed while a command was outstanding.
    case transportDropped(transport: String, reason: String)
    /// The link refused a command for a reason no reconnect can cure (`HCITransportError.isPermanent`), such as a
    /// missing capability.
    case transportRefused(transport: String, reason: String)

    public var description: String {
        switch self {
        case let .commandTimedOut(command, timeout):
            return "controller did not answer \(command) within \(Self.format(timeout))"
        case let .commandFailed(command, status):
            return "controller rejected \(command): \(Self.name(of: status))"
        case let .malformedReply(command, reason):
            return "controller's answer to \(command) is malformed: \(reason)"
        case let .invalidConfiguration(field, reason):
            return "invalid scan \(field): \(reason)"
        case let .transportUnavailable(transport, reason):
            return "cannot open \(transport): \(reason)"
        case let .transportDropped(transport, reason):
            return "link to \(transport) dropped: \(reason)"
        case let .transportRefused(transport, reason):
            return "cannot scan on \(transport): \(reason)"
        }
    }

    /// True for errors that a reconnect may cure (the link went away), false for the controller's own answers.
    public var isTransportFailure: Bool {
        switch self {
        case .transportDropped, .transportUnavailable: true
        case .commandTimedOut, .commandFailed, .malformedReply, .invalidConfiguration, .transportRefused: false
        }
    }

    /// The specification's name for common status codes, with the hex value: `Command Disallowed (0x0C)`.
    ///
    /// Core Spec 5.4, Vol 1, Part F, §1.3 (list of error codes).
    public static func name(of status: HCIStatus) -> String {
        let hex = String(status.rawValue, radix: 16, uppercase: true)
        let code = "0x" + (hex.count < 2 ? "0" + hex : hex)
        guard let name = statusNames[status.rawValue] else { return "error \(code)" }
        return "\(name) (\(code))"
    }

    static let statusNames: [UInt8: String] = [
        0x00: "Success",
        0x01: "Unknown HCI Command",
        0x02: "Unknown Connection Identifier",
        0x03: "Hardware Failure",
        0x07: "Memory Capacity Exceeded",
        0x0C: "Command Disallowed",
        0x0D: "Connection Rejected due to Limited Resources",
        0x11: "Unsupported Feature or Parameter Value",
        0x12: "Invalid HCI Command Parameters",
        0x1E: "Invalid LMP Parameters / Invalid LL Parameters",
        0x1F: "Unspecified Error",
        0x20: "Unsupported LMP Parameter Value / Unsupported LL Parameter Value",
        0x3A: "Controller Busy",
        0x3C: "Advertising Timeout",
        0x45: "Packet Too Long",
    ]

    /// `2 s`, `500 ms`.
    static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return "\(seconds) s" }
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return milliseconds.rounded() == milliseconds ? "\(Int(milliseconds)) ms" : "\(milliseconds) ms"
    }
}
