import CZip

/// The files of a zip archive in memory, read by libzip: the one place BlueDot holds a `zip_t`. It owns the
/// archive and a copy of its bytes for as long as it lives and turns libzip's errors into `ZipArchive.Error`s that
/// name the entry.
///
/// libzip reads the central directory (ZIP64 too), finds each entry's data through its local header, inflates
/// stored, deflated and the other methods it was built with (bzip2, and XZ or Zstandard where its build has them),
/// and verifies each entry's CRC-32 at its end. Here every entry's declared size is held to a limit before it is
/// read, and an entry that inflates to more or less than it declares is an error. Encrypted entries are refused.
/// The archive is opened without libzip's `ZIP_CHECKCONS`, whose one error ("zip archive inconsistent") names no
/// entry: the damage it would find fails the entry's own read instead, named.
public final class ZipArchive {
    /// One file or folder of the archive, as the central directory describes it.
    public struct Entry: Sendable, Hashable {
        /// The path inside the archive (`IMDF/unit.geojson`); folders end in `/`.
        public var path: String
        /// Bytes once inflated, as the directory declares.
        public var uncompressedSize: Int
        /// The entry's index in libzip's directory.
        var index: UInt64
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

    private let archive: OpaquePointer
    private let buffer: UnsafeMutableRawBufferPointer
    /// The entries, in the central directory's order.
    public let entries: [Entry]

    /// Opens `bytes` as a zip archive and reads its directory.
    public init(bytes: [UInt8]) throws(Error) {
        guard !bytes.isEmpty else { throw Error(entry: nil, message: "an empty file, not a zip archive") }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        buffer.copyBytes(from: bytes)
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let source = zip_source_buffer_create(buffer.baseAddress, UInt64(bytes.count), 0, &error) else {
            buffer.deallocate()
            throw Error(entry: nil, message: Self.message(zip_error_strerror(&error)))
        }
        guard let archive = zip_open_from_source(source, ZIP_RDONLY, &error) else {
            zip_source_free(source)
            buffer.deallocate()
            throw Error(entry: nil, message: Self.message(zip_error_strerror(&error)))
        }
        // From here the archive owns the source, and deinit closes both.
        self.archive = archive
        self.buffer = buffer
        var entries: [Entry] = []
        for index in 0..<UInt64(max(zip_get_num_entries(archive, 0), 0)) {
            var stat = zip_stat_t()
            zip_stat_init(&stat)
            guard zip_stat_index(archive, index, 0, &stat) == 0, let name = stat.name else { continue }
            entries.append(Entry(path: String(cString: name), uncompressedSize: Int(clamping: stat.size), index: index))
        }
        self.entries = entries
    }

    deinit {
        zip_discard(archive)
        buffer.deallocate()
    }

    /// The inflated bytes of `entry`, refused when it declares more than `limit` bytes.
    public func contents(of entry: Entry, limit: Int) throws(Error) -> [UInt8] {
        func fail(_ message: String) -> Error { Error(entry: entry.path, message: message) }
        guard entry.uncompressedSize <= limit else {
            throw fail("declares \(entry.uncompressedSize) bytes inflated, over the limit of \(limit)")
        }
        var stat = zip_stat_t()
        zip_stat_init(&stat)
        if zip_stat_index(archive, entry.index, 0, &stat) == 0, stat.valid & UInt64(ZIP_STAT_ENCRYPTION_METHOD) != 0,
           stat.encryption_method != UInt16(ZIP_EM_NONE) {
            throw fail("encrypted entries are not supported")
        }
        guard let file = zip_fopen_index(archive, entry.index, 0) else {
            throw fail("cannot open it: " + Self.message(zip_strerror(archive)))
        }
        defer { zip_fclose(file) }
        // Read in chunks, not into room for the declared size: a damaged directory may declare 256 MiB of
        // nothing. One byte past the declared size tells an entry that runs on from one that ends there.
        var output: [UInt8] = []
        output.reserveCapacity(min(entry.uncompressedSize, 1 << 20))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while output.count <= entry.uncompressedSize {
            let read = chunk.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress!, UInt64($0.count)) }
            guard read >= 0 else { throw fail("cannot read it: " + Self.message(zip_file_strerror(file))) }
            if read == 0 { break }
            output += chunk.prefix(Int(read))
        }
        guard output.count <= entry.uncompressedSize else {
            throw fail("inflates to more than the \(entry.uncompressedSize) bytes the directory says")
        }
        guard output.count == entry.uncompressedSize else {
            throw fail("inflates to \(output.count) bytes, not the \(entry.uncompressedSize) the directory says")
        }
        return output
    }

    /// libzip's text for an error (`Not a zip archive`), starting in lower case as BlueDot's messages do unless it
    /// starts with an abbreviation (`CRC error`).
    private static func message(_ text: UnsafePointer<CChar>) -> String {
        let message = String(cString: text)
        guard message.dropFirst().first?.isLowercase == true else { return message }
        return message.prefix(1).lowercased() + message.dropFirst()
    }
}
