import FoundationEssentials
import Glibc
import Positioning

/// Splits a chunked byte stream into lines without holding more than one chunk plus one line in memory.
///
/// Lines end at `\n`; a trailing `\r` is dropped; a last line without `\n` still counts. A line longer than
/// `maximumLineBytes` is skipped to its end and returned as `tooLong` so that the reader can count it.
struct LineSplitter {
    /// One line: its bytes are `buffer[range]` until the next call.
    struct Line {
        /// Where the line's bytes are in `buffer`.
        var range: Range<Int>
        /// 1-based line number.
        var number: Int
        /// True when the line exceeded the limit; `range` is then empty.
        var tooLong: Bool
    }

    /// Holds the current chunk and any partial line; lines returned by `next()` are slices of it.
    private(set) var buffer: [UInt8] = []
    private var source: any ByteChunkSource
    private let chunkSize: Int
    private let maximumLineBytes: Int
    private var start = 0
    private var scanFrom = 0
    private var endOfInput = false
    private var lineNumber = 0
    private var skippingLongLine = false

    /// Reads `source` in chunks of `chunkSize` bytes.
    init(source: any ByteChunkSource, chunkSize: Int, maximumLineBytes: Int = 1 << 20) {
        self.source = source
        self.chunkSize = max(1, chunkSize)
        self.maximumLineBytes = maximumLineBytes
        buffer.reserveCapacity(self.chunkSize)
    }

    /// The next line, or nil at the end of the input.
    mutating func next() throws(JSONLinesError) -> Line? {
        while true {
            if let newline = findNewline() {
                lineNumber += 1
                var end = newline
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                if end - start > maximumLineBytes { skippingLongLine = true }
                let line = Line(range: skippingLongLine ? start..<start : start..<end, number: lineNumber,
                                tooLong: skippingLongLine)
                skippingLongLine = false
                start = newline + 1
                scanFrom = start
                return line
            }
            scanFrom = buffer.count
            if endOfInput {
                guard start < buffer.count || skippingLongLine else { return nil }
                lineNumber += 1
                var end = buffer.count
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                if end - start > maximumLineBytes { skippingLongLine = true }
                let line = Line(range: skippingLongLine ? start..<start : start..<end, number: lineNumber,
                                tooLong: skippingLongLine)
                skippingLongLine = false
                start = buffer.count
                scanFrom = start
                return line
            }
            compact()
            if buffer.count > maximumLineBytes {
                skippingLongLine = true
                buffer.removeAll(keepingCapacity: true)
                scanFrom = 0
            }
            if try source.read(into: &buffer, maxCount: chunkSize) == 0 { endOfInput = true }
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

    /// Drops the bytes of lines already returned.
    private mutating func compact() {
        guard start > 0 else { return }
        buffer.removeSubrange(0..<start)
        scanFrom -= start
        start = 0
    }
}
