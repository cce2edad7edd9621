import Hummingbird
import Logging
import NIOCore
import NIOEmbedded

/// Requests straight into an application's responder, as a connection would hand them over, without sockets:
/// what the router tests need of Hummingbird's test client, without HummingbirdTesting (which links an HTTP client
/// with TLS, HTTP/2 and BoringSSL into every test build, sanitized ones included).
struct RouterClient: Sendable {
    /// A response: its head and its whole body.
    struct Response: Sendable {
        var head: HTTPResponse
        var body: ByteBuffer
        var status: HTTPResponse.Status { head.status }
        var headers: HTTPFields { head.headerFields }
    }

    /// How `Application.test` runs its client; only `.router` (in process) exists here.
    enum Mode { case router }

    private let respond: @Sendable (Request, Logger) async throws -> Hummingbird.Response
    private let logger: Logger

    init<Responder: HTTPResponder>(responder: Responder, logger: Logger)
    where Responder.Context: RequestContext, Responder.Context.Source == ApplicationRequestContextSource {
        self.logger = logger
        respond = { request, logger in
            let context = Responder.Context(
                source: ApplicationRequestContextSource(channel: NIOAsyncTestingChannel(), logger: logger))
            return try await responder.respond(to: request, context: context)
        }
    }

    /// Sends one request and hands its response to `check`. An error out of the responder becomes a 500 (the
    /// router answers its own errors, 404s and 405s itself).
    @discardableResult
    func execute<Value>(
        uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil,
        _ check: (Response) async throws -> Value
    ) async throws -> Value {
        var headers = headers
        if let body { headers[.contentLength] = String(body.readableBytes) }
        let request = Request(
            head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: uri, headerFields: headers),
            body: RequestBody(buffer: body ?? ByteBuffer()))
        let response: Hummingbird.Response
        do {
            response = try await respond(request, logger)
        } catch {
            response = Hummingbird.Response(status: .internalServerError)
        }
        let writer = CollectingWriter()
        try await response.body.write(writer)
        return try await check(Response(head: response.head, body: writer.collected.value))
    }

    /// Gathers a response body.
    private struct CollectingWriter: ResponseBodyWriter {
        final class Box: @unchecked Sendable { var value = ByteBuffer() }
        let collected = Box()

        mutating func write(_ buffer: ByteBuffer) async throws {
            var buffer = buffer
            collected.value.writeBuffer(&buffer)
        }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}

extension Application where Responder.Context: RequestContext, Responder.Context.Source == ApplicationRequestContextSource {
    /// Runs `body` with a client whose requests go straight to this application's responder.
    func test<Value>(_ mode: RouterClient.Mode, _ body: (RouterClient) async throws -> Value) async throws -> Value {
        try await body(RouterClient(responder: responder, logger: logger))
    }
}
