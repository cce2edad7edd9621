import FoundationEssentials

/// The files the daemon serves besides the API: the web page (read into memory at start-up from its own
/// folder, so nothing else can be reached) and Leaflet from Debian's libjs-leaflet folder (each request checked
/// by `SafePath`, then resolved and required to stay inside that folder).
public struct StaticFiles: Sendable {
    /// A file ready to send.
    public struct File: Sendable, Hashable {
        /// The bytes.
        public var bytes: [UInt8]
        /// The media type.
        public var contentType: String
    }

    /// The page's files by path below `/` (`index.html`, `app.js`, ...).
    public let page: [String: File]
    /// Leaflet's folder, resolved.
    public let leafletRoot: String?

    /// Reads every regular file in `webRoot` (one level of sub-folders) and notes Leaflet's folder if it has
    /// `leaflet.js`.
    public init(webRoot: String, leafletPath: String) {
        var files: [String: File] = [:]
        let fm = FileManager.default
        let root = URL(fileURLWithPath: webRoot)
        for name in (try? fm.contentsOfDirectory(atPath: webRoot)) ?? [] where !name.hasPrefix(".") {
            let url = root.appendingPathComponent(name)
            var isDirectory = false
            guard fm.fileExists(atPath: url.path, isDirectory: &isDirectory) else { continue }
            if isDirectory {
                for inner in (try? fm.contentsOfDirectory(atPath: url.path)) ?? [] where !inner.hasPrefix(".") {
                    let innerURL = url.appendingPathComponent(inner)
                    if let data = fm.contents(atPath: innerURL.path) {
                        files["\(name)/\(inner)"] = File(bytes: Array(data), contentType: Self.contentType(inner))
                    }
                }
            } else if let data = fm.contents(atPath: url.path) {
                files[name] = File(bytes: Array(data), contentType: Self.contentType(name))
            }
        }
        page = files
        let leaflet = URL(fileURLWithPath: leafletPath).resolvingSymlinksInPath().path
        leafletRoot = fm.fileExists(atPath: leaflet + "/leaflet.js") ? leaflet : nil
    }

    /// The page file for a request path (`/` is `index.html`), or nil.
    public func pageFile(_ rawPath: String) -> File? {
        if rawPath == "/" { return page["index.html"] }
        guard let segments = SafePath.segments(rawPath, below: "/") else { return nil }
        return page[segments.joined(separator: "/")]
    }

    /// A Leaflet file for a request path below `/vendor/leaflet/`, or nil (missing, unsafe, or outside).
    public func leafletFile(_ rawPath: String) -> File? {
        guard let leafletRoot, let segments = SafePath.segments(rawPath, below: "/vendor/leaflet/") else { return nil }
        let url = URL(fileURLWithPath: leafletRoot).appendingPathComponent(segments.joined(separator: "/"))
        let resolved = url.resolvingSymlinksInPath().path
        guard resolved.hasPrefix(leafletRoot + "/") else { return nil }
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory), !isDirectory,
            let data = FileManager.default.contents(atPath: resolved)
        else { return nil }
        return File(bytes: Array(data), contentType: Self.contentType(resolved))
    }

    /// The media type for a file name's extension.
    static func contentType(_ name: String) -> String {
        switch name.split(separator: ".").last.map({ $0.lowercased() }) ?? "" {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "json": "application/json"
        case "map": "application/json"
        default: "application/octet-stream"
        }
    }
}
