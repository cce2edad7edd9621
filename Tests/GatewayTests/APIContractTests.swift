import BeaconLocation
import BlueDotCore
import Foundation
import Gateway
import History
import Hummingbird
import LocationBus
import LocationDisplay
import Positioning
import Testing

/// The HTTP API against its OpenAPI document (`/api/openapi.json`) and the route table (`GatewayRoute`): the same
/// paths and methods, every documented operation served with a documented status and media type, 405 with `Allow`
/// for other methods, 404 for unknown paths. Schemathesis checks the bodies against the schemas on a running demo
/// (`Tools/api-contract/check`).
@Suite struct APIContractTests {
    /// The router over the fixture with a history of three fixes either side of a leap second, the hub closed so
    /// the feed ends after its snapshot.
    func withClient(token: String? = nil, _ body: @Sendable (RouterClient) async throws -> Void) async throws {
        let fixture = try RouterFixture()
        let store = try HistoryStore(path: nil, clock: ManualClock(start: 1_483_228_900))
        defer { store.close() }
        store.record([1_483_228_799, 1_483_228_800, 1_483_228_801].map { t in
            Location(timestamp: t, targetID: "tag-7", x: 1, y: 2, floor: 0, horizontalAccuracyMeters: 1.5,
                anchorCount: 3, latitude: 52, longitude: 21)
        })
        store.record(RoomChange(targetID: "tag-7", from: nil, to: "lab", timestamp: 1_483_228_800))
        store.flush()
        fixture.hub.close()
        var d = fixture.dependencies(token: token)
        d.history = store
        // Self-calibration on: a pipeline that learns, before it has heard anything.
        var engine = EngineConfiguration.moving
        engine.selfCalibration = SelfCalibration.Settings()
        d.calibration = LearnedCalibrationKeeper(
            pipeline: PositioningPipeline(venue: fixture.venue, configuration: engine), path: nil,
            venueName: fixture.venue.name, metrics: fixture.metrics, logger: RouterFixture.quiet)
        try await Application(router: GatewayRouter.build(d)).test(.router, body)
    }

    /// The document as the router serves it.
    static func document(_ client: RouterClient) async throws -> [String: Any] {
        try await client.execute(uri: "/api/openapi.json", method: .get) { response in
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            return try #require(JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
        }
    }

    /// Each documented operation: path, method, and the operation object.
    static func operations(_ document: [String: Any]) -> [(path: String, method: String, operation: [String: Any])] {
        let paths = document["paths"] as? [String: [String: Any]] ?? [:]
        return paths.sorted { $0.key < $1.key }.flatMap { path, item in
            item.compactMap { method, value in (value as? [String: Any]).map { (path, method, $0) } }
        }
    }

    /// The operation's parameters with `$ref`s to `components/parameters` resolved.
    static func parameters(_ operation: [String: Any], _ document: [String: Any]) -> [[String: Any]] {
        let shared = (document["components"] as? [String: Any])?["parameters"] as? [String: [String: Any]] ?? [:]
        return (operation["parameters"] as? [[String: Any]] ?? []).compactMap { parameter in
            guard let ref = parameter["$ref"] as? String else { return parameter }
            return shared[String(ref.split(separator: "/").last ?? "")]
        }
    }

    @Test func theDocumentIsOpenAPI31AndListsExactlyTheRoutesServed() async throws {
        // What the router has, read back from Hummingbird, with its `:name` parameters written as OpenAPI's `{name}`.
        let router = GatewayRouter.build(try RouterFixture().dependencies())
        let served = Set(router.routes.map { route in
            let segments = route.path.description.split(separator: "/").map { segment in
                segment.hasPrefix(":") ? "{\(segment.dropFirst())}" : String(segment)
            }
            return "\(route.method) /" + segments.joined(separator: "/")
        })
        #expect(served == Set(GatewayRoute.allCases.flatMap { route in route.methods.map { "\($0) \(route.template)" } }))
        try await withClient { client in
            let document = try await Self.document(client)
            #expect((document["openapi"] as? String)?.hasPrefix("3.1.") == true)
            #expect((document["info"] as? [String: Any])?["version"] is String)
            let documented = Set(Self.operations(document).map { "\($0.method.uppercased()) \($0.path)" })
            // HEAD is implied by GET (the document says so); every other method is 405.
            #expect(documented == served.filter { !$0.hasPrefix("HEAD ") })
            #expect(served.filter { $0.hasPrefix("HEAD ") }
                == Set(documented.filter { $0.hasPrefix("GET ") }.map { "HEAD " + $0.dropFirst(4) }))
        }
    }

    @Test func everyDocumentedOperationAnswersAsDocumented() async throws {
        try await withClient { client in
            let document = try await Self.document(client)
            for (path, method, operation) in Self.operations(document) {
                var uri = path
                var query: [String] = []
                for parameter in Self.parameters(operation, document) {
                    let name = try #require(parameter["name"] as? String)
                    let example = parameter["example"].map { "\($0)" }
                    switch parameter["in"] as? String {
                    case "path": uri = uri.replacingOccurrences(of: "{\(name)}", with: try #require(example, "\(path) \(name)"))
                    case "query": if let example { query.append("\(name)=\(example)") }
                    default: Issue.record("\(path): parameter \(name) is neither in the path nor the query")
                    }
                }
                let responses = try #require(operation["responses"] as? [String: [String: Any]], "\(path)")
                // The set-up routes save, or read what is kept, on an editable gateway with inputs only: on this one
                // (not editable, no inputs) they answer as documented, not always 2xx (SetupTests drive them).
                // A site's venue is served by a campus view only (CampusBridgeTests drives one); here it is 404.
                let setup = (operation["tags"] as? [String])?.contains("setup") == true || path == "/api/sites/{site}/venue"
                // Bare, then with every documented query parameter's example: both served, both as documented.
                for request in [uri, query.isEmpty ? nil : uri + "?" + query.joined(separator: "&")].compactMap({ $0 }) {
                    try await client.execute(uri: request, method: .init(method.uppercased())!) { response in
                        #expect(setup || (200..<300).contains(response.status.code), "\(request): \(response.status)")
                        // A response of the components (`$ref`) is read there.
                        let given = responses[String(response.status.code)]
                        let documented = (given?["$ref"] as? String).map { ref in
                            ((document["components"] as? [String: Any])?["responses"] as? [String: [String: Any]])?[
                                String(ref.split(separator: "/").last ?? "")]
                        } ?? given
                        #expect(documented != nil, "\(request): \(response.status.code) is not documented")
                        let types = (documented?["content"] as? [String: Any])?.keys.map { $0 } ?? []
                        let type = response.headers[.contentType]?.split(separator: ";").first.map(String.init)
                        #expect(type.map(types.contains) == true, "\(request): \(type ?? "no type") not in \(types)")
                        if type == "application/json" {
                            #expect((try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) != nil, "\(request)")
                        }
                    }
                }
            }
        }
    }

    @Test func otherMethodsAre405WithAllowAndUnknownPaths404() async throws {
        try await withClient { client in
            let wrong: [(HTTPRequest.Method, String)] = [
                (.post, "/api/health"), (.delete, "/api/venue/plan/0"), (.put, "/metrics"), (.patch, "/api/openapi.json"),
                (.options, "/api/history.gpx"), (.post, "/api/venue/plan/ground"), (.delete, "/api/health/"),
                (.post, "/"), (.put, "/app.js"), (.delete, "/vendor/leaflet/leaflet.js"),
            ]
            for (method, uri) in wrong {
                try await client.execute(uri: uri, method: method) { response in
                    #expect(response.status == .methodNotAllowed, "\(method) \(uri)")
                    let allowed = GatewayRoute(path: uri)?.allowHeader ?? "GET, HEAD"
                    #expect(response.headers[.allow] == allowed, "\(method) \(uri)")
                    #expect(response.headers[.contentType] == "application/json")
                    #expect(String(buffer: response.body).hasPrefix("{\"error\":\"\(method.rawValue) is not allowed here"))
                }
            }
            for (method, uri) in [(HTTPRequest.Method.get, "/api/nothing"), (.post, "/api/nothing"), (.get, "/api"),
                                  (.get, "/api/venue/plan"), (.get, "/api/venue/plan/0/more"), (.head, "/api/history/x")] {
                try await client.execute(uri: uri, method: method) { response in
                    #expect(response.status == .notFound, "\(method) \(uri)")
                    #expect(response.headers[.contentType] == "application/json", "\(method) \(uri)")
                }
            }
            for (method, uri) in [(HTTPRequest.Method.post, "/nothing"), (.get, "/nothing")] {
                try await client.execute(uri: uri, method: method) { #expect($0.status == .notFound, "\(method) \(uri)") }
            }
        }
    }

    @Test func headIsGetWithoutTheBody() async throws {
        let fixture = try RouterFixture()  // the hub stays open: HEAD of the feed must not subscribe
        try await Application(router: GatewayRouter.build(fixture.dependencies())).test(.router) { client in
            let length = try await client.execute(uri: "/api/venue", method: .get) { $0.headers[.contentLength] }
            try await client.execute(uri: "/api/venue", method: .head) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                #expect(response.headers[.contentLength] == length && length != nil)
                #expect(response.body.readableBytes == 0)
            }
            try await client.execute(uri: "/api/feed", method: .head) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/event-stream")
                #expect(response.headers[.contentLength] == nil, "a stream has no length")
            }
            #expect(fixture.hub.subscriberCount == 0)
            try await client.execute(uri: "/api/locations?floor=x", method: .head) { #expect($0.status == .badRequest) }
        }
    }

    @Test func theTokenComesBeforeTheMethod() async throws {
        let token = "0123456789abcdef0123"
        try await withClient(token: token) { client in
            try await client.execute(uri: "/api/health", method: .post) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/api/nothing", method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/api/health", method: .post, headers: [.authorization: "Bearer \(token)"]) {
                #expect($0.status == .methodNotAllowed)
            }
            try await client.execute(uri: "/api/openapi.json?access_token=\(token)", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test func theRouteTableMatchesPathsAsTheRouterDoes() {
        for route in GatewayRoute.allCases {
            #expect(GatewayRoute(path: route.template.replacingOccurrences(of: "{floor}", with: "-3")) == route)
        }
        #expect(GatewayRoute(path: "/api/health/") == .health)
        #expect(GatewayRoute(path: "//api//health") == .health)
        #expect(GatewayRoute(path: "/api/venue/plan/x") == .plan)
        #expect(GatewayRoute(path: "/api/venue/plan") == nil)
        #expect(GatewayRoute(path: "/api/Health") == nil)
        #expect(GatewayRoute(path: "/") == nil)
    }

    /// Values at the edges of what the document allows, and past them.
    @Test func parametersAreValidatedAsDocumented() async throws {
        try await withClient { client in
            let status = { (uri: String) async throws -> HTTPResponse.Status in
                try await client.execute(uri: uri, method: .get) { $0.status }
            }
            #expect(try await status("/api/locations?floor=-999") == .ok)
            #expect(try await status("/api/locations?floor=1000") == .badRequest)
            #expect(try await status("/api/locations?floor=-9223372036854775808") == .badRequest, "no trap in abs")
            #expect(try await status("/api/venue/plan/-9223372036854775808") == .badRequest)
            #expect(try await status("/api/venue/plan/999") == .notFound)
            // `target` counts code points, as JSON Schema's maxLength does: 64 accented letters of two each.
            let accented = String(repeating: "e\u{301}", count: 64)
            let encoded = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
            #expect(try await status("/api/locations?target=" + encoded(accented)) == .ok)
            #expect(try await status("/api/locations?target=" + encoded(accented + "e")) == .badRequest)
            #expect(try await status("/api/history?target=%01") == .badRequest)
            // RFC 3339 times: lower-case `t` and `z`, and a leap second read as the next second's start.
            for (from, first) in [("2016-12-31t23:59:60z", 1_483_228_800.0), ("2017-01-01T00:00:01%2B00:00", 1_483_228_801),
                                  ("1483228799", 1_483_228_799)] {
                try await client.execute(uri: "/api/history?order=oldest&limit=1&from=\(from)", method: .get) { response in
                    #expect(response.status == .ok, "\(from)")
                    let page = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                    #expect((page?["fixes"] as? [[String: Any]])?.first?["t"] as? Double == first, "\(from)")
                }
            }
        }
    }
}
