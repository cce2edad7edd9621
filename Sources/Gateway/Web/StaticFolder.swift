import Glibc
import Hummingbird
import Logging

/// One folder for Hummingbird's `FileMiddleware`, which no request path can leave: Hummingbird's `LocalFileSystem`
/// reads the files, and this provider resolves each path first (`realpath`: `..` and symbolic links included) and
/// refuses one that ends outside the folder, which `LocalFileSystem` alone would follow. Folders inside are not
/// served (404, where `FileMiddleware` would redirect to them); only the folder itself is one, so that
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

    func loadFile(id: String, context: some RequestContext) async throws -> ResponseBody {
        try await files.loadFile(id: id, context: context)
    }

    func loadFile(id: String, range: ClosedRange<Int>, context: some RequestContext) async throws -> ResponseBody {
        try await files.loadFile(id: id, range: range, context: context)
    }

    /// Whether a file (not a folder) is served at `path`.
    func serves(_ path: String) async -> Bool {
        guard let id = getFileIdentifier(path), let attributes = try? await getAttributes(id: id) else { return false }
        return !attributes.isFolder
    }

    /// The absolute path with every symbolic link, `.` and `..` resolved; nil when it does not exist.
    static func resolved(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
