/// The kind of an HCI packet, as the one-byte packet indicator of the UART (H4) transport names it.
///
/// Core Spec 5.4, Vol 4, Part A, §2 (Protocol: HCI packet indicators).
public enum HCIPacketType: UInt8, Sendable, Hashable, CaseIterable {
    /// HCI Command packet (host to controller).
    case command = 0x01
    /// HCI ACL Data packet.
    case acl = 0x02
    /// HCI Synchronous Data packet.
    case sco = 0x03
    /// HCI Event packet (controller to host).
    case event = 0x04
    /// HCI ISO Data packet.
    case iso = 0x05
}

/// One whole HCI packet: its type and its bytes after the packet indicator (header and parameters).
///
/// This is the unit every transport moves and every recording stores; commands and events decode from it.
public struct HCIPacket: Sendable, Hashable {
    /// What kind of packet this is.
    public var type: HCIPacketType
    /// The packet's header and parameters, without the H4 packet indicator.
    public var bytes: [UInt8]

    /// Creates a packet of the given type from its header and parameters.
    public init(type: HCIPacketType, bytes: [UInt8]) {
        self.type = type
        self.bytes = bytes
    }

    /// The packet as the UART transport sends it: the packet indicator, then the bytes.
    public var h4Bytes: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count + 1)
        out.append(type.rawValue)
        out.append(contentsOf: bytes)
        return out
    }
}

/// Which way a packet travelled, as recordings store it.
public enum HCIDirection: Sendable, Hashable {
    /// From the host to the controller (commands, outgoing data).
    case hostToController
    /// From the controller to the host (events, incoming data).
    case controllerToHost
}
