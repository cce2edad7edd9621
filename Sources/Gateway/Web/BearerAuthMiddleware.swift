import Hummingbird

/// Requires the configured bearer token on `/api/...` and `/metrics` (RFC 6750 §2.1 header, or the
/// `access_token` query parameter of §2.3 for what a browser cannot send headers with: EventSource, images).
/// The page and Leaflet are public: they hold no data.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix("/api/") || path == "/api" || path == "/metrics" else {
            return try await next(request, context)
        }
        var presented: String?
        if let header = request.headers[.authorization], header.hasPrefix("Bearer ") {
            presented = String(header.dropFirst("Bearer ".count))
        } else if let query = request.uri.queryParameters["access_token"] {
            presented = String(query)
        }
        guard let presented, Self.constantTimeEqual(presented, token) else {
            var headers = HTTPFields()
            headers[.wwwAuthenticate] = "Bearer realm=\"bluedot\""
            headers[.contentType] = "application/json"
            return Response(
                status: .unauthorized, headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: "{\"error\":\"missing or wrong bearer token\"}")))
        }
        return try await next(request, context)
    }

    /// Compares without stopping at the first difference, so timing does not leak the token.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) {
            difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
        }
        return difference == 0
    }
}
