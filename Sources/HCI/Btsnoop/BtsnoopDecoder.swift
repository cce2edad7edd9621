/// Decodes a btsnoop byte stream incrementally: push chunks of any size with `append`, pull records with `next`.
///
/// Pure (no I/O, no clock). Memory stays flat in the file size: only the unread tail is buffered. File layout:
/// a 16-byte header (`btsnoop\0`, version u32 BE = 1, datalink u32 BE), then records (see `BtsnoopRecord`);
/// BlueZ `src/shared/btsnoop.c` and `doc/btsnoop.rst` describe both datalinks read here (1002 H4, 2001 monitor).
///
/// When the input ends, call `finish()` and keep pulling: `next()` returns the remaining whole records, then nil,
/// or throws `BtsnoopError.Reason.truncatedHeader` / `.truncatedRecord` for a partial tail. Any error names the
/// record number and byte offset; records before the damage have already been returned, and the decoder stays
/// failed afterwards.
public struct BtsnoopDecoder: Sendable {
    /// Length of the file header.
    public static let fileHeaderLength = 16
    /// Length of a record header.
    public static let recordHeaderLength = 24
    /// The largest plausible included length: a 65,535-byte HCI payload plus its header and indicator.
    public static let maximumIncludedLength: UInt32 = 65_535 + 4
    /// The file magic, `btsnoop` and a zero byte.
    public static let magic: [UInt8] = Array("btsnoop\0".utf8)

    /// The datalink named by the header, once it has been read.
    public private(set) var datalink: BtsnoopDatalink?
    /// How many records have been returned.
    public private(set) var recordsRead = 0
    private var buffer: [UInt8] = []
    private var start = 0
    private var fileOffset = 0
    private var inputEnded = false
    private var failure: BtsnoopError?

    /// Creates a decoder that expects a file header first.
    public init() {}

    /// Bytes received and not yet returned as part of a record.
    public var pendingByteCount: Int { buffer.count - start }

    /// The file offset of the next unread byte.
    public var byteOffset: Int { fileOffset }

    /// Appends the next bytes of the file.
    public mutating func append(_ bytes: [UInt8]) {
        if start == buffer.count {
            buffer = bytes  // shares storage: no copy when the decoder is drained
            start = 0
        } else {
            compact()
            buffer.append(contentsOf: bytes)
        }
    }

    /// Appends the next bytes of the file.
    public mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Marks the end of the input: a partial header or record left over becomes an error from `next()`.
    public mutating func finish() { inputEnded = true }

    /// Returns the next record, nil when more bytes are needed (or, after `finish()`, at the clean end).
    public mutating func next() throws(BtsnoopError) -> BtsnoopRecord? {
        if let failure { throw failure }
        if datalink == nil {
            guard try readFileHeader() else { return nil }
        }
        let available = buffer.count - start
        guard available >= Self.recordHeaderLength else {
            if inputEnded && available > 0 {
                try fail(.truncatedRecord(needs: Self.recordHeaderLength, has: available))
            }
            return nil
        }
        let header: RecordHeader
        do { header = try RecordHeader(ByteReader(buffer[start..<(start + Self.recordHeaderLength)])) } catch {
            try fail(.truncatedRecord(needs: Self.recordHeaderLength, has: available))
        }
        guard header.included <= Self.maximumIncludedLength else { try fail(.implausibleLength(header.included)) }
        guard header.included <= header.original else {
            try fail(.includedLengthExceedsOriginal(included: header.included, original: header.original))
        }
        let total = Self.recordHeaderLength + Int(header.included)
        guard available >= total else {
            if inputEnded { try fail(.truncatedRecord(needs: total, has: available)) }
            return nil
        }
        let payloadStart = start + Self.recordHeaderLength
        let content = try decodeContent(header: header, payload: payloadStart..<(start + total))
        let record = BtsnoopRecord(
            number: recordsRead + 1, byteOffset: fileOffset, timestamp: header.timestamp, flags: header.flags,
            originalLength: header.original, cumulativeDrops: header.drops,
            adapterIndex: datalink == .monitor ? UInt16(truncatingIfNeeded: header.flags >> 16) : 0,
            content: content)
        start += total
        fileOffset += total
        recordsRead += 1
        return record
    }

    /// The fixed fields before a record's payload.
    private struct RecordHeader {
        var original: UInt32
        var included: UInt32
        var flags: UInt32
        var drops: UInt32
        var timestamp: BtsnoopTimestamp

        init(_ reader: ByteReader) throws(HCIDecodingError) {
            var r = reader
            original = try r.u32BigEndian("original length")
            included = try r.u32BigEndian("included length")
            flags = try r.u32BigEndian("flags")
            drops = try r.u32BigEndian("cumulative drops")
            let high = UInt64(try r.u32BigEndian("timestamp (high)"))
            let low = UInt64(try r.u32BigEndian("timestamp (low)"))
            timestamp = BtsnoopTimestamp(microsecondsSinceYear0: Int64(bitPattern: high << 32 | low))
        }
    }

    /// Reads the file header; false when more bytes are needed.
    private mutating func readFileHeader() throws(BtsnoopError) -> Bool {
        let available = buffer.count - start
        guard available >= Self.fileHeaderLength else {
            if inputEnded { try fail(.truncatedHeader(needs: Self.fileHeaderLength, has: available), record: 0) }
            return false
        }
        var r = ByteReader(buffer[start..<(start + Self.fileHeaderLength)])
        do {
            guard try r.bytes(8, "magic").elementsEqual(Self.magic) else { try fail(.badMagic, record: 0) }
            let version = try r.u32BigEndian("version")
            guard version == 1 else { try fail(.unsupportedVersion(version), record: 0) }
            let type = try r.u32BigEndian("datalink")
            guard let link = BtsnoopDatalink(rawValue: type) else { try fail(.unsupportedDatalink(type), record: 0) }
            datalink = link
        } catch let error as BtsnoopError {
            throw error
        } catch {
            try fail(.truncatedHeader(needs: Self.fileHeaderLength, has: available), record: 0)
        }
        start += Self.fileHeaderLength
        fileOffset += Self.fileHeaderLength
        return true
    }

    /// Turns a payload into a packet (or a non-HCI monitor record) according to the datalink.
    private mutating func decodeContent(header: RecordHeader, payload: Range<Int>) throws(BtsnoopError)
        -> BtsnoopRecord.Content
    {
        switch datalink {
        case .monitor:
            let opcode = BtsnoopMonitorOpcode(rawValue: UInt16(truncatingIfNeeded: header.flags))
            guard let kind = opcode.hciPacket else {
                return .monitor(opcode: opcode, data: Array(buffer[payload]))
            }
            return .packet(HCIPacket(type: kind.type, bytes: Array(buffer[payload])), direction: kind.direction)
        case .h4, nil:
            guard let indicator = payload.isEmpty ? nil : buffer[payload.lowerBound] else {
                try fail(.unknownH4Indicator(nil))
            }
            guard let type = HCIPacketType(rawValue: indicator) else { try fail(.unknownH4Indicator(indicator)) }
            let direction: HCIDirection = header.flags & 1 == 0 ? .hostToController : .controllerToHost
            let bytes = Array(buffer[(payload.lowerBound + 1)..<payload.upperBound])
            return .packet(HCIPacket(type: type, bytes: bytes), direction: direction)
        }
    }

    /// Records the failure at the current record and throws it.
    private mutating func fail(_ reason: BtsnoopError.Reason, record: Int? = nil) throws(BtsnoopError) -> Never {
        let error = BtsnoopError(recordNumber: record ?? recordsRead + 1, byteOffset: fileOffset, reason: reason)
        failure = error
        throw error
    }

    /// Drops consumed bytes once they outweigh the unread ones.
    private mutating func compact() {
        guard start > 0, start * 2 >= buffer.count || start == buffer.count else { return }
        buffer.removeSubrange(0..<start)
        start = 0
    }
}
