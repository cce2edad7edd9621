import Glibc

/// Reads a file the gateway serves whole (a floor plan the venue names, the OpenAPI document, the page's and
/// Leaflet's files): a regular file, at most 32 MiB; nil for anything else or when it cannot be read.
///
/// POSIX calls rather than `FileManager.attributesOfItem`: FoundationEssentials gives the size as a `UInt64`
/// where Foundation gave an `NSNumber`, and a cast that held with Foundation loaded failed without it.
enum WholeFileReader {
    static func read(_ path: String) -> [UInt8]? {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { _ = Glibc.close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size <= 32 << 20 else {
            return nil
        }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return nil }
            offset += n
        }
        return bytes
    }
}
