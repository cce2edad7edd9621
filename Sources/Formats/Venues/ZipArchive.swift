import CZlib

/// The files of a zip archive in memory: the central directory read from the end, each entry's local header
/// checked against it, stored and deflated entries inflated with zlib, sizes and CRC-32 verified.
///
/// Written for IMDF archives, and for archives from anywhere: every offset and length is checked against the
/// bytes present, inflation stops at the size the directory declares, and a stream that ends early, runs on or
/// does not match its checksum is an error naming the entry. (ZIPFoundation, used before, spins for ever on a
/// deflate stream that the file ends before, and traps on some malformed archives in memory; found by fuzzing.)
/// Not supported, and said so: ZIP64, encryption, compression methods other than stored (0) and deflate (8),
/// archives split over several files. The layout is PKWARE's APPNOTE.TXT 6.3.10, sections 4.3.7 (local file
/// header), 4.3.12 (central directory header) and 4.3.16 (end of central directory record).
public struct ZipArchive: Sendable {
    /// One file or folder of the archive, as the central directory describes it.
    public struct Entry: Sendable, Hashable {
        /// The path inside the archive (`IMDF/unit.geojson`); folders end in `/`.
        public var path: String
        /// 0 stored, 8 deflate.
        public var method: UInt16
        /// Bytes stored in the archive.
        public var compressedSize: Int
        /// Bytes once inflated.
        public var uncompressedSize: Int
        /// The CRC-32 of the inflated bytes.
        public var crc32: UInt32
        /// Where its local header starts.
        var localHeaderOffset: Int
        /// Whether it is a folder.
        public var isFolder: Bool { path.hasSuffix("/") }
    }

    /// Why an archive or an entry cannot be read.
    public struct Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// The entry's path, or nil for the archive as a whole.
        public var entry: String?
        /// What is wrong.
        public var message: String
        /// Creates an error.
        public init(entry: String?, message: String) {
            self.entry = entry
            self.message = message
        }

        /// `entry: message`, or the message alone.
        public var description: String { entry.map { "\($0): \(message)" } ?? message }
    }

    /// The archive's bytes.
    private let bytes: [UInt8]
    /// The entries, in the central directory's order.
    public let entries: [Entry]

    /// Reads the central directory of `bytes`.
    public init(bytes: [UInt8]) throws(Error) {
        self.bytes = bytes
        entries = try Self.centralDirectory(bytes)
    }

    /// The inflated bytes of `entry`, refused when larger than `limit`.
    public func contents(of entry: Entry, limit: Int) throws(Error) -> [UInt8] {
        func fail(_ message: String) -> Error { Error(entry: entry.path, message: message) }
        guard entry.uncompressedSize <= limit else { throw fail("larger than \(limit >> 20) MiB inflated") }
        let header = entry.localHeaderOffset
        guard let signature = u32(header), signature == 0x0403_4B50, let nameLength = u16(header + 26),
              let extraLength = u16(header + 28)
        else { throw fail("no local file header at byte \(header)") }
        guard let flags = u16(header + 6), let method = u16(header + 8), method == entry.method else {
            throw fail("the local header and the central directory disagree on the compression method")
        }
        guard flags & 1 == 0 else { throw fail("encrypted entries are not supported") }
        let start = header + 30 + Int(nameLength) + Int(extraLength)
        guard start <= bytes.count, entry.compressedSize <= bytes.count - start else {
            throw fail("its \(entry.compressedSize) bytes run past the end of the archive")
        }
        let data = bytes[start..<(start + entry.compressedSize)]
        let output: [UInt8]
        switch entry.method {
        case 0:
            guard entry.compressedSize == entry.uncompressedSize else {
                throw fail("a stored entry whose sizes differ")
            }
            output = Array(data)
        case 8:
            output = try Self.inflate(data, expected: entry.uncompressedSize, entry: entry.path)
        default:
            throw fail("compression method \(entry.method) is not supported (only stored and deflate)")
        }
        let crc = output.withUnsafeBufferPointer { buffer in
            UInt32(CZlib.crc32(0, buffer.baseAddress, uInt(buffer.count)))
        }
        guard crc == entry.crc32 else { throw fail("CRC-32 mismatch: the entry is damaged") }
        return output
    }

    // MARK: - Reading

    private func u16(_ offset: Int) -> UInt16? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    private func u32(_ offset: Int) -> UInt32? {
        guard let low = u16(offset), let high = u16(offset + 2) else { return nil }
        return UInt32(low) | UInt32(high) << 16
    }

    private static func centralDirectory(_ bytes: [UInt8]) throws(Error) -> [Entry] {
        let reader = ZipArchive(unchecked: bytes)
        // The end of central directory record: 22 bytes, then a comment of up to 65,535 bytes.
        var end: Int?
        var candidate = bytes.count - 22
        while candidate >= 0, candidate >= bytes.count - 22 - 0xFFFF {
            if reader.u32(candidate) == 0x0605_4B50,
               let commentLength = reader.u16(candidate + 20), candidate + 22 + Int(commentLength) == bytes.count {
                end = candidate
                break
            }
            candidate -= 1
        }
        guard let end else { throw Error(entry: nil, message: "not a zip archive (no end of central directory)") }
        guard let disk = reader.u16(end + 4), let directoryDisk = reader.u16(end + 6), disk == 0, directoryDisk == 0
        else { throw Error(entry: nil, message: "archives split over several files are not supported") }
        guard let count = reader.u16(end + 10), let size = reader.u32(end + 12), let offset = reader.u32(end + 16)
        else { throw Error(entry: nil, message: "a truncated end of central directory") }
        if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
            throw Error(entry: nil, message: "ZIP64 archives are not supported")
        }
        guard Int(offset) <= end, Int(size) <= end - Int(offset) else {
            throw Error(entry: nil, message: "the central directory lies outside the archive")
        }
        var entries: [Entry] = []
        var at = Int(offset)
        for index in 0..<Int(count) {
            guard reader.u32(at) == 0x0201_4B50, let method = reader.u16(at + 10), let crc = reader.u32(at + 16),
                  let compressed = reader.u32(at + 20), let uncompressed = reader.u32(at + 24),
                  let nameLength = reader.u16(at + 28), let extraLength = reader.u16(at + 30),
                  let commentLength = reader.u16(at + 32), let local = reader.u32(at + 42),
                  at + 46 + Int(nameLength) <= end
            else { throw Error(entry: nil, message: "central directory entry \(index) is damaged") }
            if compressed == 0xFFFF_FFFF || uncompressed == 0xFFFF_FFFF || local == 0xFFFF_FFFF {
                throw Error(entry: nil, message: "ZIP64 entries are not supported")
            }
            let path = String(decoding: bytes[(at + 46)..<(at + 46 + Int(nameLength))], as: UTF8.self)
            entries.append(Entry(path: path, method: method, compressedSize: Int(compressed),
                                 uncompressedSize: Int(uncompressed), crc32: crc, localHeaderOffset: Int(local)))
            at += 46 + Int(nameLength) + Int(extraLength) + Int(commentLength)
        }
        return entries
    }

    private init(unchecked bytes: [UInt8]) {
        self.bytes = bytes
        entries = []
    }

    /// Inflates a raw deflate stream that must end exactly at the end of `data` and give `expected` bytes.
    private static func inflate(_ data: ArraySlice<UInt8>, expected: Int, entry: String) throws(Error) -> [UInt8] {
        func fail(_ message: String) -> Error { Error(entry: entry, message: message) }
        var stream = z_stream()
        guard inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw fail("zlib cannot start inflating")
        }
        defer { inflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: max(expected, 1))  // zlib wants somewhere to write, even nothing
        var input = Array(data)
        let status = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                // All input and all room at once: zlib either finishes, or stops with an error or for want of
                // input or room, each of which means the entry is damaged.
                return CZlib.inflate(&stream, Z_FINISH)
            }
        }
        switch status {
        case Z_STREAM_END:
            guard Int(stream.total_out) == expected else {
                throw fail("inflates to \(stream.total_out) bytes, not the \(expected) the directory says")
            }
            guard stream.avail_in == 0 else { throw fail("bytes after the end of its deflate stream") }
            return Array(output.prefix(expected))
        case Z_BUF_ERROR:
            throw fail(stream.avail_in == 0 ? "its deflate stream ends early"
                       : "inflates to more than the \(expected) bytes the directory says")
        default:
            throw fail("not a valid deflate stream (zlib status \(status))")
        }
    }
}
