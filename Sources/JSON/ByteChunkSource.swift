/// Something that hands out the bytes of a stream a chunk at a time (a file, `SystemIO`'s `FileChunkSource`, or
/// memory in tests).
public protocol ByteChunkSource {
    /// Appends up to `maxCount` bytes to `buffer` and returns how many were appended; 0 means the end.
    mutating func read(into buffer: inout [UInt8], maxCount: Int) throws(JSONLinesError) -> Int
}

/// Bytes already in memory, handed out in chunks of the caller's size (tests use it to vary chunk boundaries).
public struct MemoryChunkSource: ByteChunkSource, Sendable {
    private let bytes: [UInt8]
    private var offset = 0

    /// Serves `bytes`.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Appends the next chunk.
    public mutating func read(into buffer: inout [UInt8], maxCount: Int) throws(JSONLinesError) -> Int {
        let n = min(maxCount, bytes.count - offset)
        buffer.append(contentsOf: bytes[offset..<offset + n])
        offset += n
        return n
    }
}
