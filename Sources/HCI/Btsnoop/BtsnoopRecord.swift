/// One record of a btsnoop file: an HCI packet with its direction and time, or a non-HCI monitor record.
///
/// Record layout (RFC 1761 §"Packet Record Format", as btsnoop uses it): original length, included length,
/// flags, cumulative drops (u32 big-endian each), timestamp (i64 big-endian microseconds since year 0), payload.
public struct BtsnoopRecord: Sendable, Hashable {
    /// What a record carries.
    public enum Content: Sendable, Hashable {
        /// An HCI packet and the way it travelled.
        case packet(HCIPacket, direction: HCIDirection)
        /// A Linux monitor record that is not HCI traffic (new index, system note, user logging, ...): surfaced,
        /// not an error, so that callers can skip or log it.
        case monitor(opcode: BtsnoopMonitorOpcode, data: [UInt8])
    }

    /// The 1-based record number, as Wireshark numbers frames.
    public var number: Int
    /// Where the record header starts in the file.
    public var byteOffset: Int
    /// When the record was captured.
    public var timestamp: BtsnoopTimestamp
    /// The raw flags field.
    public var flags: UInt32
    /// The packet length on the wire; larger than the payload when the capture cut the packet short.
    public var originalLength: UInt32
    /// The cumulative drops field.
    public var cumulativeDrops: UInt32
    /// The controller index (the high 16 bits of the flags in monitor files; 0 in H4 files).
    public var adapterIndex: UInt16
    /// The packet or monitor record.
    public var content: Content

    /// Creates a record from its parts.
    public init(
        number: Int, byteOffset: Int, timestamp: BtsnoopTimestamp, flags: UInt32, originalLength: UInt32,
        cumulativeDrops: UInt32, adapterIndex: UInt16, content: Content
    ) {
        self.number = number
        self.byteOffset = byteOffset
        self.timestamp = timestamp
        self.flags = flags
        self.originalLength = originalLength
        self.cumulativeDrops = cumulativeDrops
        self.adapterIndex = adapterIndex
        self.content = content
    }

    /// The HCI packet, or nil for a non-HCI monitor record.
    @inlinable public var packet: HCIPacket? {
        if case let .packet(packet, _) = content { packet } else { nil }
    }

    /// The packet's direction, or nil for a non-HCI monitor record.
    @inlinable public var direction: HCIDirection? {
        if case let .packet(_, direction) = content { direction } else { nil }
    }

    /// The capture time in seconds since the Unix epoch.
    @inlinable public var unixSeconds: Double { timestamp.unixSeconds }
}
