import Hummingbird
import Logging

/// The files the daemon serves besides the API, through Hummingbird's `FileMiddleware`: the web page from its
/// folder (`/` is its `index.html`) and Leaflet from Debian's libjs-leaflet folder under `/vendor/leaflet/`, each a
/// `StaticFolder` that no request leaves; `StaticFileMiddleware` in front answers what `FileMiddleware` does not.
public struct StaticFiles: Sendable {
    /// The page's folder; nil when it does not exist.
    let page: StaticFolder?
    /// Leaflet's folder; nil unless it holds `leaflet.js`.
    let leaflet: StaticFolder?

    /// Where Leaflet is served.
    static let leafletPath = "/vendor/leaflet"

    /// Leaflet's folder, resolved; nil when it has no `leaflet.js` (the page then says what to install).
    public var leafletRoot: String? { leaflet?.root }

    /// The page from `webRoot` and Leaflet from `leafletPath`; `logger` hears where each is served from.
    public init(webRoot: String, leafletPath: String, logger: Logger) {
        page = StaticFolder(webRoot, logger: logger)
        let hasLeaflet = StaticFolder.resolved(leafletPath + "/leaflet.js") != nil
        leaflet = hasLeaflet ? StaticFolder(leafletPath, logger: logger) : nil
    }

    /// The middlewares that serve the files, in the router's order: `StaticFileMiddleware`, then a
    /// `FileMiddleware` for each folder.
    func middlewares<Context: RequestContext>() -> [any MiddlewareProtocol<Request, Response, Context>] {
        var middlewares: [any MiddlewareProtocol<Request, Response, Context>] = [
            StaticFileMiddleware<Context>(files: self)
        ]
        if let page {
            middlewares.append(FileMiddleware<Context, StaticFolder>(fileProvider: page, searchForIndexHtml: true)
                .withAdditionalMediaTypes(forFileExtensions: Self.mediaTypes))
        }
        if let leaflet {
            middlewares.append(FileMiddleware<Context, StaticFolder>(fileProvider: leaflet, urlBasePath: Self.leafletPath)
                .withAdditionalMediaTypes(forFileExtensions: Self.mediaTypes))
        }
        return middlewares
    }

    /// Whether GET would serve a file for these request path segments (percent-decoded, `SafePath`'s).
    func serves(_ segments: [String]) async -> Bool {
        let mount = Self.leafletPath.split(separator: "/").map(String.init)
        if let leaflet, segments.starts(with: mount),
            await leaflet.serves("/" + segments.dropFirst(mount.count).joined(separator: "/")) {
            return true
        }
        return await page?.serves("/" + segments.joined(separator: "/")) ?? false
    }

    /// Hummingbird's media types with the charset of the page's text and Leaflet's source maps named.
    static let mediaTypes: [String: MediaType] = [
        "html": MediaType(type: .text, subType: "html", parameter: ("charset", "utf-8")),
        "js": MediaType(type: .text, subType: "javascript", parameter: ("charset", "utf-8")),
        "css": MediaType(type: .text, subType: "css", parameter: ("charset", "utf-8")),
        "map": .applicationJson,
    ]
}
