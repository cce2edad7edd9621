/// Encodes btsnoop files with datalink 1002 (H4), the form Wireshark, `btmon -r` and Android tools read.
///
/// Pure: returns bytes for the caller to write. Layout as `BtsnoopDecoder` reads it (BlueZ `doc/btsnoop.rst`,
/// RFC 1761): header `btsnoop\0`, version 1, datalink; each record 24 header bytes and the H4 packet.
public enum BtsnoopWriter {
    /// The 16-byte file header for `datalink`.
    public static func fileHeader(datalink: BtsnoopDatalink = .h4) -> [UInt8] {
        var w = ByteWriter(capacity: BtsnoopDecoder.fileHeaderLength)
        w.append(BtsnoopDecoder.magic)
        w.u32BigEndian(1)
        w.u32BigEndian(datalink.rawValue)
        return w.bytes
    }

    /// The H4 flags of a packet: bit 0 set when received by the host, bit 1 set for commands and events.
    public static func h4Flags(type: HCIPacketType, direction: HCIDirection) -> UInt32 {
        let received: UInt32 = direction == .controllerToHost ? 1 : 0
        let commandOrEvent: UInt32 = type == .command || type == .event ? 2 : 0
        return received | commandOrEvent
    }

    /// One whole H4 record (header and payload) for a packet, ready for a single write.
    public static func record(
        _ packet: HCIPacket, direction: HCIDirection, timestamp: BtsnoopTimestamp, cumulativeDrops: UInt32 = 0
    ) -> [UInt8] {
        let length = UInt32(packet.bytes.count + 1)
        var w = ByteWriter(capacity: BtsnoopDecoder.recordHeaderLength + Int(length))
        writeRecordHeader(
            into: &w, length: length, flags: h4Flags(type: packet.type, direction: direction),
            drops: cumulativeDrops, timestamp: timestamp)
        w.u8(packet.type.rawValue)
        w.append(packet.bytes)
        return w.bytes
    }

    /// One whole record with explicit flags and payload, for any datalink (such as monitor test files).
    public static func record(
        payload: [UInt8], flags: UInt32, timestamp: BtsnoopTimestamp, cumulativeDrops: UInt32 = 0
    ) -> [UInt8] {
        var w = ByteWriter(capacity: BtsnoopDecoder.recordHeaderLength + payload.count)
        writeRecordHeader(
            into: &w, length: UInt32(payload.count), flags: flags, drops: cumulativeDrops, timestamp: timestamp)
        w.append(payload)
        return w.bytes
    }

    /// Original and included lengths (equal: nothing is cut), flags, drops, timestamp.
    static func writeRecordHeader(
        into w: inout ByteWriter, length: UInt32, flags: UInt32, drops: UInt32, timestamp: BtsnoopTimestamp
    ) {
        w.u32BigEndian(length)
        w.u32BigEndian(length)
        w.u32BigEndian(flags)
        w.u32BigEndian(drops)
        let raw = UInt64(bitPattern: timestamp.microsecondsSinceYear0)
        w.u32BigEndian(UInt32(truncatingIfNeeded: raw >> 32))
        w.u32BigEndian(UInt32(truncatingIfNeeded: raw))
    }
}
