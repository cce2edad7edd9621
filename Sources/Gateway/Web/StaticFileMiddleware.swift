import Hummingbird

/// What Hummingbird's `FileMiddleware` does not do, in front of it, for every path outside `/api` and `/metrics`
/// (those go on to the route table):
/// - a path `SafePath` refuses is 404 (`FileMiddleware` answers `..` and a bad escape with 400, and would serve a
///   hidden file);
/// - another method than GET or HEAD on a file is 405 with `Allow: GET, HEAD` (`FileMiddleware` hands it to the
///   router, which has no route there: 404);
/// - without Leaflet, `/` is an error page saying what to install (503);
/// - `/favicon.ico` is a redirect to the page's `favicon.svg`, `/setup` to the set-up page's `setup.html`;
/// - every file is `Cache-Control: no-cache` (`FileMiddleware` sets it by media type, so never for a file whose
///   type it does not know), `X-Content-Type-Options: nosniff` and, without a known type, `application/octet-stream`.
struct StaticFileMiddleware<Context: RequestContext>: RouterMiddleware {
    let files: StaticFiles

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        guard !path.hasPrefix("/api/"), path != "/api", path != "/metrics" else { return try await next(request, context) }
        let isPage = path == "/" || path == "/index.html"
        guard let segments = isPage ? ["index.html"] : SafePath.segments(path, below: "/") else {
            throw HTTPError(.notFound)
        }
        guard request.method == .get || request.method == .head else {
            let isFile = isPage ? true : await files.serves(segments)
            guard isFile else { return try await next(request, context) }
            return RouteTableMiddleware<Context>.methodNotAllowed(request.method, allow: "GET, HEAD")
        }
        if isPage, files.leaflet == nil {
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            return Response(
                status: .serviceUnavailable, headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: Self.missingLeafletPage)))
        }
        if path == "/favicon.ico" { return .redirect(to: "/favicon.svg", type: .found) }
        if path == "/setup" { return .redirect(to: "/setup.html", type: .found) }
        var response = try await next(request, context)
        response.headers[.cacheControl] = "no-cache"
        response.headers[.xContentTypeOptions] = "nosniff"
        if response.headers[.contentType] == nil { response.headers[.contentType] = "application/octet-stream" }
        return response
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
