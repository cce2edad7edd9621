#if canImport(Glibc)
import Glibc
#endif

/// One btsnoop file's descriptor: open, read, write and close through `System`, errors as `BtsnoopFileError`.
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
        do {
            return BtsnoopFileDescriptor(path: path, fd: try System.open(path, O_RDONLY | O_CLOEXEC, label: "open"))
        } catch {
            throw .open(path: path, errno: error.code)
        }
    }

    /// Creates or truncates a file for writing (mode 0644 before the umask).
    static func createForWriting(_ path: String) throws(BtsnoopFileError) -> BtsnoopFileDescriptor {
        do {
            let fd = try System.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o644, label: "open")
            return BtsnoopFileDescriptor(path: path, fd: fd)
        } catch {
            throw .open(path: path, errno: error.code)
        }
    }

    /// Reads up to `count` bytes; an empty array means the end of the file.
    func read(upTo count: Int) throws(BtsnoopFileError) -> [UInt8] {
        guard fd >= 0 else { throw .closed(path: path) }
        var bytes = [UInt8](repeating: 0, count: count)
        do {
            let got = try System.read(fd, into: &bytes, label: "read") ?? 0
            bytes.removeSubrange(got...)
            return bytes
        } catch {
            throw .read(path: path, errno: error.code)
        }
    }

    /// Writes all of `bytes`: one write(2) normally, more only when the kernel takes part of them.
    func write(_ bytes: [UInt8]) throws(BtsnoopFileError) {
        guard fd >= 0 else { throw .closed(path: path) }
        var written = 0
        do {
            while written < bytes.count {
                guard let count = try System.write(fd, bytes[written...], label: "write"), count > 0 else {
                    throw BtsnoopFileError.write(path: path, errno: EIO)
                }
                written += count
            }
        } catch let error as SystemError {
            throw .write(path: path, errno: error.code)
        } catch {
            throw .write(path: path, errno: EIO)
        }
    }

    /// Closes the descriptor; later calls do nothing.
    func close() {
        guard fd >= 0 else { return }
        System.close(fd)
        fd = -1
    }

    deinit { close() }
}
