import BeaconLocation
import BlueDotCore
import Devices
import Foundation
import Gateway
import Hummingbird
import LocationDisplay
import Positioning
import Testing

/// The HTTP routes, driven through Hummingbird's router test framework (no sockets).
@Suite struct RouterTests {
    func withClient(
        _ fixture: RouterFixture, token: String? = nil, _ body: @Sendable (RouterClient) async throws -> Void
    ) async throws {
        let app = Application(router: GatewayRouter.build(fixture.dependencies(token: token)))
        try await app.test(.router, body)
    }

    @Test func venueDocument() async throws {
        let fixture = try RouterFixture()
        try await withClient(fixture) { client in
            try await client.execute(uri: "/api/venue", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                #expect(object?["name"] as? String == "Test \"lab\"")
                let anchors = object?["anchors"] as? [[String: Any]]
                #expect(anchors?.count == 3)
                #expect(abs((anchors?[0]["lat"] as? Double ?? 0) - 52.0) < 1e-9)
                let floors = object?["floors"] as? [[String: Any]]
                #expect(floors?.map { $0["floor"] as? Int } == [0, 1])
                #expect(floors?[0]["plan"] as? String == "/api/venue/plan/0")
                #expect(!String(buffer: response.body).contains(fixture.directory.path), "no file path leaks")
            }
            try await client.execute(uri: "/api/venue/plan/0", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/svg+xml")
            }
            try await client.execute(uri: "/api/venue/plan/1", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/api/venue/plan/..%2f..", method: .get) { #expect($0.status == .badRequest) }
        }
    }

    @Test func displaySettingsForThePagesAutoPan() async throws {
        let fixture = try RouterFixture()
        try await withClient(fixture) { client in
            try await client.execute(uri: "/api/display", method: .get) { response in
                #expect(String(buffer: response.body) == """
                    {"wanderExtentFactor":0.5,"navigationPointHeightFactor":0.125,"initialZoomScale":250.0,\
                    "staleAfterSeconds":5.0,"targetNames":{}}
                    """)
            }
        }
    }

    /// The device registry's names: beside each named target's fix in `/api/locations`, and for the page's labels
    /// in `/api/display`.
    @Test func registryNamesReachTheAPIAndThePage() async throws {
        let fixture = try RouterFixture()
        var d = fixture.dependencies()
        d.siteFiles = SiteFiles(
            venuePath: nil, venue: fixture.venue, venueLoaded: true, devicesPath: nil,
            registry: try DeviceRegistry(devices: [Device(id: "tag-7", name: "Alice's \"keys\"")], file: "test"),
            logger: RouterFixture.quiet)
        let app = Application(router: GatewayRouter.build(d))
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/locations", method: .get) { response in
                let array = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]]
                #expect(array?.map { $0["name"] as? String } == [nil, "Alice's \"keys\""])
                #expect(array?.map { $0["target"] as? String } == ["self", "tag-7"])
            }
            try await client.execute(uri: "/api/display", method: .get) { response in
                #expect(String(buffer: response.body).hasSuffix(#""targetNames":{"tag-7":"Alice's \"keys\""}}"#))
            }
        }
    }

    @Test func locationsInTheFormatsDocument() async throws {
        let fixture = try RouterFixture()
        try await withClient(fixture) { client in
            try await client.execute(uri: "/api/locations", method: .get) { response in
                #expect(response.status == .ok)
                let array = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]]
                #expect(array?.map { $0["target"] as? String } == ["self", "tag-7"])
                #expect(array?[0]["horizontalAccuracy"] as? Double == 1.2)
                #expect(array?[0]["lastKnown"] as? Bool == false)
            }
            try await client.execute(uri: "/api/locations?target=tag-7", method: .get) { response in
                #expect(String(buffer: response.body).contains("\"tag-7\""))
                #expect(!String(buffer: response.body).contains("\"self\""))
            }
            try await client.execute(uri: "/api/locations?floor=0", method: .get) { response in
                #expect(String(buffer: response.body).contains("\"self\""))
                #expect(!String(buffer: response.body).contains("\"tag-7\""))
            }
            try await client.execute(uri: "/api/locations?floor=ground", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body) == "{\"error\":\"floor must be an integer, -999 ... 999\"}")
            }
            try await client.execute(uri: "/api/locations?x=1", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body) == "{\"error\":\"unknown query parameter \\\"x\\\"\"}")
            }
            let long = String(repeating: "a", count: 129)
            try await client.execute(uri: "/api/locations?target=\(long)", method: .get) { #expect($0.status == .badRequest) }
        }
    }

    @Test func feedStartsWithTheCurrentState() async throws {
        let fixture = try RouterFixture()
        fixture.hub.publish(Location(timestamp: 101, targetID: "walker", x: 3, y: 3, floor: 0,
            horizontalAccuracyMeters: 1, speedMetersPerSecond: 1.1, courseDegrees: 135, lastKnown: false,
            anchorCount: 3))
        fixture.hub.close()  // the stream ends after the snapshot, so the router test can read the whole body
        try await withClient(fixture) { client in
            try await client.execute(uri: "/api/feed", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/event-stream")
                let text = String(buffer: response.body)
                #expect(text.hasPrefix("retry: 1000\n\n"))
                let frames = text.components(separatedBy: "\n\n").filter { $0.hasPrefix("id: ") }
                #expect(frames.count == 3)
                #expect(frames.first?.contains("event: fix\ndata: {\"fix\":{\"t\": 100.000, \"target\": \"self\"") == true)
                #expect(frames.first?.contains("\"navigationRotation\":0,") == true, "standing: plan +y up")
                let walker = frames.first { $0.contains("\"target\": \"walker\"") }
                #expect(walker?.contains("\"rotation\":135,\"navigationRotation\":135,") == true,
                        "navigation turns the map to the course: \(walker ?? "no walker frame")")
            }
            try await client.execute(uri: "/api/feed?target=self", method: .get) { #expect($0.status == .badRequest) }
        }
    }

    @Test func healthAndMetrics() async throws {
        let fixture = try RouterFixture()
        fixture.metrics.reports.increment(by: Int64(42))
        try await withClient(fixture) { client in
            try await client.execute(uri: "/api/health", method: .get) { response in
                #expect(String(buffer: response.body) == "{\"status\":\"ok\",\"source\":\"test\",\"sourceStatus\":\"initialising\",\"targets\":2,\"subscribers\":0,\"uptime\":0}")
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
                for line in [
                    "bluedot_advertising_reports_total 42", "bluedot_targets_tracked 2.0", "bluedot_fixes_total 0",
                    "bluedot_malformed_reports_total 0", "bluedot_scanner_reconnects_total 0",
                    "bluedot_report_to_fix_latency_seconds_count 0",
                ] {
                    #expect(text.contains(line + "\n"), "\(line)")
                }
            }
        }
    }

    @Test func bearerTokenGuardsTheAPIOnly() async throws {
        let fixture = try RouterFixture()
        let token = "0123456789abcdef0123"
        try await withClient(fixture, token: token) { client in
            for uri in ["/api/locations", "/api/venue", "/api/feed", "/metrics", "/api/health"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .unauthorized, "\(uri)")
                    #expect(response.headers[.wwwAuthenticate] == "Bearer realm=\"bluedot\"")
                }
            }
            try await client.execute(
                uri: "/api/locations", method: .get, headers: [.authorization: "Bearer wrong-token-0000000"]
            ) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/api/locations", method: .get, headers: [.authorization: "Bearer \(token)"]) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/api/locations?access_token=\(token)", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/vendor/leaflet/leaflet.js", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test func staticFilesComeOnlyFromTheirFolders() async throws {
        let fixture = try RouterFixture()
        try await withClient(fixture) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("<title>page</title>"))
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            }
            try await client.execute(uri: "/img/logo.svg", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/vendor/leaflet/images/marker.png", method: .get) {
                #expect($0.status == .ok)
                #expect($0.headers[.contentType] == "image/png")
            }
            let types = [
                "/": "text/html; charset=utf-8", "/index.html": "text/html; charset=utf-8",
                "/app.js": "text/javascript; charset=utf-8", "/img/logo.svg": "image/svg+xml",
                "/vendor/leaflet/leaflet.js": "text/javascript; charset=utf-8",
                "/vendor/leaflet/images/marker.png": "image/png", "/vendor/leaflet/leaflet.js.map": "application/json",
                "/vendor/leaflet/leaflet.js.brotli": "application/octet-stream",
            ]
            for (uri, type) in types {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                    #expect(response.headers[.contentType] == type, "\(uri)")
                    #expect(response.headers[.cacheControl] == "no-cache", "\(uri)")
                    #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(uri)")
                }
            }
            try await client.execute(uri: "/app.js", method: .get, headers: [.range: "bytes=2-5"]) { response in
                #expect(response.status == .partialContent)
                #expect(String(buffer: response.body) == "nsol")
                #expect(response.headers[.contentRange] == "bytes 2-5/14")
            }
            try await client.execute(uri: "/app.js", method: .get, headers: [.range: "bytes=10-"]) { response in
                #expect(response.status == .partialContent)
                #expect(String(buffer: response.body) == "g(1)")
            }
            let length = try await client.execute(uri: "/app.js", method: .get) { $0.headers[.contentLength] }
            try await client.execute(uri: "/app.js", method: .head) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentLength] == length && length == "14")
                #expect(response.body.readableBytes == 0)
            }
            let refused = [
                "/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/img/../../secret.txt",
                "/img/%2e%2e/%2e%2e/secret.txt", "/vendor/leaflet/../../secret.txt",
                "/vendor/leaflet/%2e%2e/%2e%2e/secret.txt", "/vendor/leaflet/%2e%2e%2f%2e%2e%2fsecret.txt",
                "/vendor/leaflet/..%5c..%5csecret.txt", "//etc/passwd", "/vendor/leaflet//etc/passwd",
                "/vendor/leaflet/%2fetc%2fpasswd", "/\(fixture.directory.path)/secret.txt", "/etc/passwd",
                "/.hidden", "/vendor/leaflet/images", "/vendor/leaflet/", "/img/%00.svg", "/img/%zz",
            ]
            for uri in refused {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .notFound, "\(uri)")
                    #expect(!String(buffer: response.body).contains("secret"), "\(uri)")
                }
            }
        }
    }

    /// A link may point anywhere: what it resolves to must be inside the folder it is served from.
    @Test func symbolicLinksDoNotLeaveTheirFolder() async throws {
        let fixture = try RouterFixture()
        let fm = FileManager.default
        let secret = fixture.directory.appendingPathComponent("secret.txt").path
        let web = fixture.directory.appendingPathComponent("web")
        let leaflet = fixture.directory.appendingPathComponent("leaflet")
        try fm.createSymbolicLink(atPath: web.appendingPathComponent("secret.txt").path, withDestinationPath: secret)
        try fm.createSymbolicLink(atPath: web.appendingPathComponent("up").path, withDestinationPath: "..")
        try fm.createSymbolicLink(atPath: leaflet.appendingPathComponent("images/secret.png").path,
                                  withDestinationPath: "../../secret.txt")
        try fm.createSymbolicLink(atPath: leaflet.appendingPathComponent("etc").path, withDestinationPath: "/etc")
        try fm.createSymbolicLink(atPath: leaflet.appendingPathComponent("leaflet-src.js").path,
                                  withDestinationPath: "leaflet.js")
        try await withClient(fixture) { client in
            for uri in ["/secret.txt", "/up/secret.txt", "/up/leaflet/leaflet.js", "/vendor/leaflet/images/secret.png",
                        "/vendor/leaflet/etc/passwd", "/vendor/leaflet/etc/hostname"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .notFound, "\(uri)")
                    #expect(!String(buffer: response.body).contains("secret"), "\(uri)")
                }
                try await client.execute(uri: uri, method: .post) { #expect($0.status == .notFound, "POST \(uri)") }
            }
            // A link that stays inside is served.
            try await client.execute(uri: "/vendor/leaflet/leaflet-src.js", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "/* leaflet */")
            }
        }
        // The folders themselves may be links (Debian's /usr/share/javascript/leaflet may be one).
        let linked = fixture.directory.appendingPathComponent("leaflet-link").path
        try fm.createSymbolicLink(atPath: linked, withDestinationPath: leaflet.path)
        var d = fixture.dependencies()
        d.files = StaticFiles(webRoot: web.path, leafletPath: linked, logger: RouterFixture.quiet)
        try await Application(router: GatewayRouter.build(d)).test(.router) { client in
            try await client.execute(uri: "/vendor/leaflet/leaflet.js", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/vendor/leaflet/images/secret.png", method: .get) {
                #expect($0.status == .notFound)
            }
        }
    }

    /// The page's icon is `favicon.svg`; a browser that asks for `/favicon.ico` anyway is sent there.
    @Test func theFaviconIsTheSVGIcon() async throws {
        let fixture = try RouterFixture()
        let icon = fixture.directory.appendingPathComponent("web/favicon.svg")
        try "<svg/>".write(to: icon, atomically: true, encoding: .utf8)
        try await withClient(fixture) { client in
            try await client.execute(uri: "/favicon.ico", method: .get) { response in
                #expect(response.status == .found)
                #expect(response.headers[.location] == "/favicon.svg")
            }
            try await client.execute(uri: "/favicon.svg", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/svg+xml")
            }
        }
    }

    @Test func missingLeafletShowsAnInstallPage() async throws {
        let fixture = try RouterFixture(leaflet: false)
        try await withClient(fixture) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(String(buffer: response.body).contains("apt-get install libjs-leaflet"))
            }
            try await client.execute(uri: "/api/health", method: .get) { #expect($0.status == .ok) }
        }
    }
}
