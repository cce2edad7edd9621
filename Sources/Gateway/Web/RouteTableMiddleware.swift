import Hummingbird

/// Answers what the route table (`GatewayRoute`) does not serve, before the router looks: a method a known path
/// does not take is 405 Method Not Allowed with `Allow` (RFC 9110 §15.5.6), and a path under `/api` that no route
/// has is 404; both with the API's problem body. Hummingbird alone would answer both with an empty 404. Paths
/// outside `/api` and `/metrics` go on to the page's files.
struct RouteTableMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        guard let route = GatewayRoute(path: path) else {
            guard path.hasPrefix("/api/") || path == "/api" else { return try await next(request, context) }
            return GatewayRouter.problem(.notFound, "no such API path: \(path.prefix(128))")
        }
        guard route.methods.contains(request.method) else {
            return Self.methodNotAllowed(request.method, allow: route.allowHeader)
        }
        return try await next(request, context)
    }

    /// 405 with the methods the resource takes.
    static func methodNotAllowed(_ method: HTTPRequest.Method, allow: String) -> Response {
        var response = GatewayRouter.problem(.methodNotAllowed, "\(method.rawValue.prefix(32)) is not allowed here: \(allow)")
        response.headers[.allow] = allow
        return response
    }
}
