import Foundation
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
    private let handle: FileHandle
    private let name: String

    /// Opens the file at `path`; `name` is how errors call it.
    public init(path: String, name: String) throws(JSONLinesError) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw JSONLinesError(file: name, line: nil, message: "cannot open \(path)")
        }
        self.handle = handle
        self.name = name
    }

    deinit {
        try? handle.close()
    }

    /// Appends the next chunk read from the file.
    public func read(into buffer: inout [UInt8], maxCount: Int) throws(JSONLinesError) -> Int {
        let data: Data?
        do {
            data = try handle.read(upToCount: maxCount)
        } catch {
            throw JSONLinesError(file: name, line: nil, message: "read failed: \(error)")
        }
        guard let data, !data.isEmpty else { return 0 }
        buffer.append(contentsOf: data)
        return data.count
    }
}
