import Glibc
import JSON

/// A file read sequentially in chunks, so that memory stays flat whatever the file's size.
public final class FileChunkSource: ByteChunkSource {
    private let descriptor: Int32
    /// How errors call the file.
    public let name: String

    /// Opens the file at `path`; `name` is how errors call it.
    public init(path: String, name: String) throws(JSONLinesError) {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw JSONLinesError(file: name, line: nil, message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
        self.name = name
    }

    /// Opens the file at `path`, named in errors by its last path component.
    public convenience init(path: String) throws(JSONLinesError) {
        try self.init(path: path, name: path.split(separator: "/").last.map(String.init) ?? path)
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
