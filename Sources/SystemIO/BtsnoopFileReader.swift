import HCI

/// Reads a btsnoop file (datalink 1002 or 2001) record by record, streaming it through `BtsnoopDecoder` in chunks.
///
/// Memory stays flat in the file size. A damaged or truncated file yields every record up to the damage, then
/// throws `BtsnoopFileError.damaged` naming the record and byte offset. Use it as an `AsyncSequence`, or call
/// `makeCursor()` for a synchronous loop.
public struct BtsnoopFileReader: AsyncSequence, Sendable {
    /// The file to read.
    public let path: String
    /// How many bytes each read(2) asks for.
    public let chunkSize: Int

    /// Creates a reader of the file at `path`; nothing is opened until iteration starts.
    public init(path: String, chunkSize: Int = 64 * 1024) {
        self.path = path
        self.chunkSize = Swift.max(1, chunkSize)
    }

    /// Opens the file for a synchronous loop: `while let record = try cursor.next() { ... }`.
    public func makeCursor() throws(BtsnoopFileError) -> Cursor {
        Cursor(file: try BtsnoopFileDescriptor.openForReading(path), chunkSize: chunkSize)
    }

    /// A synchronous, single-pass read of one file. Closes the file at the end, at an error, or on deinit.
    public final class Cursor {
        private let file: BtsnoopFileDescriptor
        private let chunkSize: Int
        private var decoder = BtsnoopDecoder()
        private var done = false

        init(file: BtsnoopFileDescriptor, chunkSize: Int) {
            self.file = file
            self.chunkSize = chunkSize
        }

        /// The datalink of the file, once its header has been read.
        public var datalink: BtsnoopDatalink? { decoder.datalink }

        /// Returns the next record, or nil at the end of a well-formed file.
        public func next() throws(BtsnoopFileError) -> BtsnoopRecord? {
            guard !done else { return nil }
            while true {
                if let record = try decodeNext() { return record }
                let chunk: [UInt8]
                do { chunk = try file.read(upTo: chunkSize) } catch {
                    finish()
                    throw error
                }
                if chunk.isEmpty {
                    decoder.finish()
                    if let record = try decodeNext() { return record }
                    finish()
                    return nil
                }
                decoder.append(chunk)
            }
        }

        /// The decoder's next record; a decoding failure closes the file and names it.
        private func decodeNext() throws(BtsnoopFileError) -> BtsnoopRecord? {
            do { return try decoder.next() } catch {
                finish()
                throw .damaged(path: file.path, error)
            }
        }

        private func finish() {
            done = true
            file.close()
        }
    }

    /// The asynchronous iterator: opens the file on the first `next()`.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let reader: BtsnoopFileReader
        var cursor: Cursor?

        /// Returns the next record, nil at the end, or throws at the damage.
        public mutating func next() async throws -> BtsnoopRecord? {
            if cursor == nil { cursor = try reader.makeCursor() }
            return try cursor!.next()
        }
    }

    /// Starts an iteration.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(reader: self, cursor: nil) }
}
