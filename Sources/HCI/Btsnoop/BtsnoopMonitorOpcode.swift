/// The opcode of a Linux monitor (datalink 2001) record: the low 16 bits of its flags.
///
/// Values from BlueZ `src/shared/btsnoop.h` (`BTSNOOP_OPCODE_*`) and `doc/btsnoop.rst`. HCI traffic uses
/// opcodes 2-7, 18 and 19; the rest (new/deleted/open/closed index, index info, vendor diagnostics, system notes,
/// user logging, management control) describe the monitor itself and carry no HCI packet.
public struct BtsnoopMonitorOpcode: RawRepresentable, Sendable, Hashable {
    /// The opcode value.
    public var rawValue: UInt16

    /// Wraps an opcode value.
    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// A controller index was added.
    public static let newIndex = BtsnoopMonitorOpcode(rawValue: 0)
    /// A controller index was removed.
    public static let deleteIndex = BtsnoopMonitorOpcode(rawValue: 1)
    /// HCI command packet (host to controller).
    public static let commandPacket = BtsnoopMonitorOpcode(rawValue: 2)
    /// HCI event packet (controller to host).
    public static let eventPacket = BtsnoopMonitorOpcode(rawValue: 3)
    /// ACL data sent by the host.
    public static let aclTXPacket = BtsnoopMonitorOpcode(rawValue: 4)
    /// ACL data received from the controller.
    public static let aclRXPacket = BtsnoopMonitorOpcode(rawValue: 5)
    /// SCO data sent by the host.
    public static let scoTXPacket = BtsnoopMonitorOpcode(rawValue: 6)
    /// SCO data received from the controller.
    public static let scoRXPacket = BtsnoopMonitorOpcode(rawValue: 7)
    /// The controller index was opened.
    public static let openIndex = BtsnoopMonitorOpcode(rawValue: 8)
    /// The controller index was closed.
    public static let closeIndex = BtsnoopMonitorOpcode(rawValue: 9)
    /// Controller address and manufacturer.
    public static let indexInfo = BtsnoopMonitorOpcode(rawValue: 10)
    /// Vendor diagnostics.
    public static let vendorDiagnostic = BtsnoopMonitorOpcode(rawValue: 11)
    /// A note from the system (text).
    public static let systemNote = BtsnoopMonitorOpcode(rawValue: 12)
    /// A user logging message.
    public static let userLogging = BtsnoopMonitorOpcode(rawValue: 13)
    /// ISO data sent by the host.
    public static let isoTXPacket = BtsnoopMonitorOpcode(rawValue: 18)
    /// ISO data received from the controller.
    public static let isoRXPacket = BtsnoopMonitorOpcode(rawValue: 19)

    /// The HCI packet type and direction this opcode carries, or nil for a non-HCI record.
    @inlinable public var hciPacket: (type: HCIPacketType, direction: HCIDirection)? {
        switch rawValue {
        case 2: (.command, .hostToController)
        case 3: (.event, .controllerToHost)
        case 4: (.acl, .hostToController)
        case 5: (.acl, .controllerToHost)
        case 6: (.sco, .hostToController)
        case 7: (.sco, .controllerToHost)
        case 18: (.iso, .hostToController)
        case 19: (.iso, .controllerToHost)
        default: nil
        }
    }

    /// The monitor opcode that carries a packet of `type` travelling in `direction`.
    public init(packetType type: HCIPacketType, direction: HCIDirection) {
        let toController = direction == .hostToController
        switch type {
        case .command: rawValue = 2
        case .event: rawValue = 3
        case .acl: rawValue = toController ? 4 : 5
        case .sco: rawValue = toController ? 6 : 7
        case .iso: rawValue = toController ? 18 : 19
        }
    }
}
