import Hummingbird

/// Serves the page and Leaflet for GET and HEAD requests outside `/api` and `/metrics`; another method on one of
/// their files is 405 with `Allow: GET, HEAD`, and everything else goes on to the router. A path that is unsafe or
/// unknown is 404; without Leaflet, `/` is an error page saying what to install.
struct StaticFileMiddleware<Context: RequestContext>: RouterMiddleware {
    let files: StaticFiles

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        guard !path.hasPrefix("/api/"), path != "/api", path != "/metrics" else { return try await next(request, context) }
        let isPage = path == "/" || path == "/index.html"
        let file = path.hasPrefix("/vendor/leaflet/") ? files.leafletFile(path) : files.pageFile(path)
        guard request.method == .get || request.method == .head else {
            guard isPage || file != nil else { return try await next(request, context) }
            return RouteTableMiddleware<Context>.methodNotAllowed(request.method, allow: "GET, HEAD")
        }
        if isPage, files.leafletRoot == nil {
            return Self.respond(status: .serviceUnavailable, Self.missingLeafletPage, type: "text/html; charset=utf-8")
        }
        guard let file else {
            return Self.respond(status: .notFound, "not found\n", type: "text/plain; charset=utf-8")
        }
        var headers = HTTPFields()
        headers[.contentType] = file.contentType
        headers[.cacheControl] = "no-cache"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }

    static func respond(status: HTTPResponse.Status, _ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static var missingLeafletPage: String {
        """
        <!doctype html><html><head><meta charset="utf-8"><title>BlueDot: Leaflet missing</title></head>
        <body style="font-family:sans-serif;max-width:40em;margin:3em auto">
        <h1>Leaflet is not installed</h1>
        <p>The BlueDot map draws with Leaflet from Debian's <code>libjs-leaflet</code> package, which the daemon
        serves from <code>/usr/share/javascript/leaflet</code> (or the <code>leaflet</code> setting). Install it and
        reload:</p><pre>sudo apt-get install libjs-leaflet</pre>
        <p>The API works without it: <a href="/api/health">/api/health</a>.</p></body></html>
        """
    }
}
