import Glibc

/// The only place this module's btsnoop code calls the kernel: open(2), read(2), write(2), close(2) on one file.
///
/// Owns its descriptor and closes it on `close()` or deinit. Not thread-safe by itself: `BtsnoopRecorder`
/// serialises access, and readers use one per iterator.
final class BtsnoopFileDescriptor {
    let path: String
    private(set) var fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    /// Opens an existing file for reading.
    static func openForReading(_ path: String) throws(BtsnoopFileError) -> BtsnoopFileDescriptor {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .open(path: path, errno: errno) }
        return BtsnoopFileDescriptor(path: path, fd: fd)
    }

    /// Creates or truncates a file for writing (mode 0644 before the umask).
    static func createForWriting(_ path: String) throws(BtsnoopFileError) -> BtsnoopFileDescriptor {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .open(path: path, errno: errno) }
        return BtsnoopFileDescriptor(path: path, fd: fd)
    }

    /// Reads up to `count` bytes; an empty array means the end of the file. Retries on EINTR.
    func read(upTo count: Int) throws(BtsnoopFileError) -> [UInt8] {
        guard fd >= 0 else { throw .closed(path: path) }
        var result: Int = -1
        var code: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            repeat {
                result = Glibc.read(fd, buffer.baseAddress, count)
                code = result < 0 ? errno : 0
            } while result < 0 && code == EINTR
            initialized = max(0, result)
        }
        guard result >= 0 else { throw .read(path: path, errno: code) }
        return bytes
    }

    /// Writes all of `bytes`: one write(2) normally, more only when the kernel takes part of them.
    func write(_ bytes: [UInt8]) throws(BtsnoopFileError) {
        guard fd >= 0 else { throw .closed(path: path) }
        var written = 0
        var code: Int32 = 0
        bytes.withUnsafeBytes { raw in
            while written < raw.count {
                let result = Glibc.write(fd, raw.baseAddress! + written, raw.count - written)
                if result > 0 {
                    written += result
                } else if result < 0 && errno == EINTR {
                    continue
                } else {
                    code = result < 0 ? errno : EIO
                    return
                }
            }
        }
        guard written == bytes.count else { throw .write(path: path, errno: code) }
    }

    /// Closes the descriptor; later calls do nothing.
    func close() {
        guard fd >= 0 else { return }
        _ = Glibc.close(fd)
        fd = -1
    }

    deinit { close() }
}
