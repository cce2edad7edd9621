import Glibc
import Positioning

/// Something that hands out the bytes of a stream a chunk at a time (a file, or memory in tests).
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

/// A file read sequentially in chunks, so that memory stays flat whatever the file's size.
public final class FileChunkSource: ByteChunkSource {
    private let descriptor: Int32
    private let name: String

    /// Opens the file at `path`; `name` is how errors call it.
    public init(path: String, name: String) throws(JSONLinesError) {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw JSONLinesError(file: name, line: nil, message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
        self.name = name
    }

    deinit {
        _ = Glibc.close(descriptor)
    }

    /// Appends the next chunk read from the file.
    public func read(into buffer: inout [UInt8], maxCount: Int) throws(JSONLinesError) -> Int {
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: maxCount))
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + start, maxCount) }
            if n >= 0 {
                buffer.removeLast(maxCount - n)
                return n
            }
            guard errno == EINTR else {
                let reason = String(cString: strerror(errno))
                buffer.removeLast(maxCount)
                throw JSONLinesError(file: name, line: nil, message: "read failed: \(reason)")
            }
        }
    }
}
