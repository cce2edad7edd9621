/// The datalink type in a btsnoop file header: how each record's payload is framed.
///
/// Values as BlueZ's `src/shared/btsnoop.h` names them (`BTSNOOP_FORMAT_UART`, `BTSNOOP_FORMAT_MONITOR`); the file
/// layout follows RFC 1761 (snoop version 2), with btsnoop's version 1 header.
public enum BtsnoopDatalink: UInt32, Sendable, Hashable, CaseIterable {
    /// HCI UART (H4): each payload starts with the H4 packet indicator; flags bit 0 is the direction
    /// (0 sent, 1 received), bit 1 marks commands and events. What Android and Bumble write.
    case h4 = 1002
    /// Linux monitor: flags are `(adapter index << 16) | opcode`, payload is the packet without an indicator.
    /// What `btmon -w` writes.
    case monitor = 2001
}
