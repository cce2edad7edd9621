import Hummingbird
import Logging
import SystemIO

/// One folder for Hummingbird's `FileMiddleware`, which no request path can leave: Hummingbird's `LocalFileSystem`
/// finds the files and their attributes, and this provider resolves each path first (`realpath`: `..` and symbolic
/// links included) and refuses one that ends outside the folder, which `LocalFileSystem` alone would follow. Folders
/// inside are not served (404, where `FileMiddleware` would redirect to them); only the folder itself is one, so that
/// `FileMiddleware` can answer `/` with its `index.html`.
struct StaticFolder: FileProvider {
    typealias FileAttributes = LocalFileSystem.FileAttributes
    typealias FileIdentifier = String

    /// The folder, resolved.
    let root: String
    private let files: LocalFileSystem

    /// The folder at `path`; nil when there is none.
    init?(_ path: String, logger: Logger) {
        guard let root = Self.resolved(path) else { return nil }
        self.root = root
        files = LocalFileSystem(rootFolder: root, threadPool: .singleton, logger: logger)
    }

    /// The resolved file a request path (percent-decoded, below the mount point) names; nil when there is no such
    /// file or it is outside the folder.
    func getFileIdentifier(_ path: String) -> String? {
        guard let full = files.getFileIdentifier(path), let resolved = Self.resolved(full),
            resolved == root || resolved.hasPrefix(root.hasSuffix("/") ? root : root + "/")
        else { return nil }
        return resolved
    }

    /// A file's attributes; nil for a folder inside.
    func getAttributes(id: String) async throws -> FileAttributes? {
        guard let attributes = try await files.getAttributes(id: id), !attributes.isFolder || id == root else {
            return nil
        }
        return attributes
    }

    /// The file, read whole by `SystemIO`'s `WholeFile` rather than in `LocalFileSystem`'s chunks from NIO's thread
    /// pool: ThreadSanitizer reports each chunk as a data race between the pool's thread that fills it and the task that
    /// writes the response (`Tools/tsan`, `RouterTests`; docs/gateway.md). The files are small: Leaflet's largest is
    /// 665 kB, under the reader's 32 MiB.
    func loadFile(id: String, context: some RequestContext) async throws -> ResponseBody {
        ResponseBody(byteBuffer: ByteBuffer(bytes: try Self.read(id)))
    }

    /// The bytes of `range` (as the request gave it: the end may lie past the file's).
    func loadFile(id: String, range: ClosedRange<Int>, context: some RequestContext) async throws -> ResponseBody {
        let bytes = try Self.read(id)
        let lower = max(range.lowerBound, 0), upper = min(range.upperBound, bytes.count - 1)
        return ResponseBody(byteBuffer: ByteBuffer(bytes: lower <= upper ? bytes[lower...upper] : []))
    }

    private static func read(_ id: String) throws -> [UInt8] {
        guard let bytes = WholeFile.contents(id, limit: 32 << 20) else { throw HTTPError(.notFound) }
        return bytes
    }

    /// Whether a file (not a folder) is served at `path`.
    func serves(_ path: String) async -> Bool {
        guard let id = getFileIdentifier(path), let attributes = try? await getAttributes(id: id) else { return false }
        return !attributes.isFolder
    }

    /// The absolute path with every symbolic link, `.` and `..` resolved; nil when it does not exist
    /// (`SystemIO`'s `ResolvedPath`).
    static func resolved(_ path: String) -> String? { ResolvedPath.of(path) }
}
