import Glibc

/// Reads a file whole: a venue, a configuration, a key file, a floor plan the gateway serves. Every file BlueDot
/// reads at once goes through here (files read a chunk at a time through `FileChunkSource`), so that what can go
/// wrong is said one way: the file, and the operating system's reason.
///
/// A regular file only, at most `limit` bytes (64 MiB unless said): a folder, a device or a FIFO is refused rather
/// than read forever. POSIX calls rather than `FileManager`: FoundationEssentials gives sizes as `UInt64` where
/// Foundation gave an `NSNumber`, and a cast that held with Foundation loaded failed without it.
public enum WholeFile {
    /// Why a file could not be read.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The path asked for.
        public var path: String
        /// What went wrong (`No such file or directory`, `not a regular file`, `larger than 32 MiB`).
        public var reason: String

        /// `cannot read /etc/bluedot/site.venue.json: No such file or directory`.
        public var description: String { "cannot read \(path): \(reason)" }
    }

    /// The default limit, bytes.
    public static let defaultLimit = 64 << 20

    /// The bytes of the regular file at `path`.
    public static func read(_ path: String, limit: Int = defaultLimit) throws(Failure) -> [UInt8] {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(path: path, reason: Self.reason(errno)) }
        defer { _ = Glibc.close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Failure(path: path, reason: Self.reason(errno)) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw Failure(path: path, reason: "not a regular file") }
        guard status.st_size <= limit else { throw Failure(path: path, reason: "larger than \(limit >> 20) MiB") }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw Failure(path: path, reason: Self.reason(errno)) }
            guard n > 0 else { break }  // the file shrank while it was read: what is there
            offset += n
        }
        return offset == bytes.count ? bytes : Array(bytes[..<offset])
    }

    /// The bytes of the regular file at `path`, or nil when it cannot be read.
    public static func contents(_ path: String, limit: Int = defaultLimit) -> [UInt8]? {
        try? read(path, limit: limit)
    }

    /// The text of the regular file at `path` (UTF-8, invalid bytes replaced).
    public static func text(_ path: String, limit: Int = defaultLimit) throws(Failure) -> String {
        String(decoding: try read(path, limit: limit), as: UTF8.self)
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
