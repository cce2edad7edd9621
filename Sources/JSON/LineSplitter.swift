import FoundationEssentials
import Glibc

/// Splits a chunked byte stream into lines without holding more than one chunk plus one line in memory: the one
/// line framing of BlueDot, for files read in chunks (observation and location JSON lines) and for streams pushed
/// in chunks (gpsd's reports over TCP).
///
/// Lines end at `\n`; a trailing `\r` is dropped; at the end of a file, a last line without `\n` still counts. A
/// line longer than `maximumLineBytes` is skipped to its end and returned as `tooLong` so that the reader can count
/// it. Pull from a `ByteChunkSource` with `init(source:chunkSize:maximumLineBytes:)` and `next()`, or push chunks
/// with `append(_:)` and take the complete lines with `nextComplete()`.
public struct LineSplitter {
    /// One line: its bytes are `buffer[range]` until the splitter is used again.
    public struct Line: Sendable {
        /// Where the line's bytes are in `buffer`.
        public var range: Range<Int>
        /// 1-based line number.
        public var number: Int
        /// True when the line exceeded the limit; `range` is then empty.
        public var tooLong: Bool
    }

    /// Holds the current chunk and any partial line; lines returned are slices of it.
    public private(set) var buffer: [UInt8] = []
    /// The longest line returned whole, bytes.
    public let maximumLineBytes: Int
    private var source: (any ByteChunkSource)?
    private let chunkSize: Int
    private var start = 0
    private var scanFrom = 0
    private var endOfInput = false
    private var lineNumber = 0
    private var skippingLongLine = false

    /// Reads `source` in chunks of `chunkSize` bytes (`next()`).
    public init(source: any ByteChunkSource, chunkSize: Int, maximumLineBytes: Int = 1 << 20) {
        self.source = source
        self.chunkSize = max(1, chunkSize)
        self.maximumLineBytes = maximumLineBytes
        buffer.reserveCapacity(self.chunkSize)
    }

    /// Takes chunks pushed with `append(_:)` (`nextComplete()`).
    public init(maximumLineBytes: Int) {
        source = nil
        chunkSize = 0
        self.maximumLineBytes = maximumLineBytes
    }

    /// The next line of the source, or nil at its end.
    public mutating func next() throws(JSONLinesError) -> Line? {
        while true {
            if let line = split() { return line }
            if endOfInput { return nil }
            makeRoom()
            guard var chunks = source else { return nil }
            let read = try chunks.read(into: &buffer, maxCount: chunkSize)
            source = chunks
            if read == 0 { endOfInput = true }
        }
    }

    /// Adds a chunk pushed by a stream.
    public mutating func append(_ chunk: [UInt8]) {
        makeRoom()
        buffer.append(contentsOf: chunk)
    }

    /// The next complete line of the chunks pushed so far, or nil until more come.
    public mutating func nextComplete() -> Line? {
        if let line = split() { return line }
        makeRoom()
        return nil
    }

    /// The next line in the buffer: one ended by `\n`, or at the end of the input the last one without it.
    private mutating func split() -> Line? {
        let end: Int
        if let newline = findNewline() {
            end = newline
        } else {
            scanFrom = buffer.count
            guard endOfInput, start < buffer.count || skippingLongLine else { return nil }
            end = buffer.count
        }
        lineNumber += 1
        var last = end
        if last > start, buffer[last - 1] == 0x0D { last -= 1 }
        if last - start > maximumLineBytes { skippingLongLine = true }
        let line = Line(range: skippingLongLine ? start..<start : start..<last, number: lineNumber,
                        tooLong: skippingLongLine)
        skippingLongLine = false
        start = min(end + 1, buffer.count)
        scanFrom = start
        return line
    }

    /// Drops the bytes of lines already returned, and a partial line already too long (it is skipped to its end).
    private mutating func makeRoom() {
        if start > 0 {
            buffer.removeSubrange(0..<start)
            scanFrom -= start
            start = 0
        }
        if buffer.count > maximumLineBytes {
            skippingLongLine = true
            buffer.removeAll(keepingCapacity: true)
            scanFrom = 0
        }
    }

    /// Index of the next `\n` at or after `scanFrom` (libc's `memchr`, which looks at many bytes at a time).
    private func findNewline() -> Int? {
        buffer.withUnsafeBufferPointer { bytes in
            guard scanFrom < bytes.count, let base = bytes.baseAddress,
                  let found = memchr(base + scanFrom, 0x0A, bytes.count - scanFrom)
            else { return nil }
            return UnsafeRawPointer(found) - UnsafeRawPointer(base)
        }
    }
}
