import ArgumentParser
import Glibc

/// Writing bytes to a file descriptor with write(2): the commands' output, without Foundation's `FileHandle`.
enum FileOutput {
    /// Writes all of `bytes` to `descriptor`, going on after a short write or a signal. False when a write
    /// fails (a closed pipe, a full disk).
    @discardableResult
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// Writes `text` as UTF-8 to `descriptor`.
    @discardableResult
    static func writeAll(_ descriptor: Int32, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { writeAll(descriptor, UnsafeRawBufferPointer($0)) }
    }
}

/// Lines buffered in blocks of 64 KiB and written to standard output or to a file the command creates. A write
/// that fails (a full disk) is remembered, and `close()` throws it, naming the file.
struct BufferedLines {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private let name: String
    private var buffer: [UInt8] = []
    private var failure: String?

    /// Lines to standard output.
    static func standardOutput() -> BufferedLines {
        BufferedLines(descriptor: STDOUT_FILENO, owns: false, name: "standard output")
    }

    /// Lines to a new file at `path` (an existing one is emptied first).
    init(creating path: String) throws(ValidationError) {
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ValidationError("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        self.init(descriptor: descriptor, owns: true, name: path)
    }

    private init(descriptor: Int32, owns: Bool, name: String) {
        self.descriptor = descriptor
        ownsDescriptor = owns
        self.name = name
        buffer.reserveCapacity(1 << 16)
    }

    /// Adds `line` and a newline.
    mutating func append(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Writes what is buffered.
    mutating func flush() {
        guard !buffer.isEmpty else { return }
        if failure == nil, !buffer.withUnsafeBytes({ FileOutput.writeAll(descriptor, $0) }) {
            failure = String(cString: strerror(errno))
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is buffered and closes a file the command created; throws when any write failed.
    mutating func close() throws(ValidationError) {
        flush()
        if ownsDescriptor, Glibc.close(descriptor) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        if let failure { throw ValidationError("cannot write \(name): \(failure)") }
    }
}
