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

/// The history's routes over an in-memory store: pages and cursors, room changes, targets, GPX, and the errors.
@Suite struct HistoryRoutesTests {
    static func location(_ target: String, _ t: Double) -> Location {
        Location(timestamp: t, targetID: target, x: 1, y: 2, floor: 0, horizontalAccuracyMeters: 1.5, anchorCount: 3,
            latitude: 52.0 + t * 1e-6, longitude: 21.0, room: "lab", roomProbability: 0.75)
    }

    func withClient(history: HistoryStore?, origin: Bool = true,
                    _ body: @Sendable (RouterClient) async throws -> Void) async throws {
        let fixture = try RouterFixture()
        var d = fixture.dependencies()
        d.history = history
        if !origin {
            var venue = fixture.venue
            venue.origin = nil
            d.siteFiles = SiteFiles(venuePath: nil, venue: venue, venueLoaded: true, devicesPath: nil, registry: .empty,
                                    logger: RouterFixture.quiet)
        }
        try await Application(router: GatewayRouter.build(d)).test(.router, body)
    }

    @Test func pagesCursorsAndErrors() async throws {
        let store = try HistoryStore(path: nil, clock: ManualClock(start: 1000))
        defer { store.close() }
        store.record((0..<25).map { Self.location("tag-7", 100 + Double($0)) })
        store.record(RoomChange(targetID: "tag-7", from: nil, to: "lab", timestamp: 100))
        store.flush()
        try await withClient(history: store) { client in
            var next: String?
            var times: [Double] = []
            repeat {
                let uri = "/api/history?target=tag-7&limit=10" + (next.map { "&cursor=" + $0 } ?? "")
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok)
                    let page = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                    let fixes = page?["fixes"] as? [[String: Any]] ?? []
                    times += fixes.compactMap { $0["t"] as? Double }
                    #expect(fixes.first?["room"] as? String == "lab")
                    next = page?["next"] as? String
                }
            } while next != nil
            #expect(times == (0..<25).reversed().map { 100 + Double($0) }, "newest first, every fix once")
            try await client.execute(uri: "/api/history?from=110&to=1970-01-01T00:01:52Z&order=oldest", method: .get) { r in
                let page = try JSONSerialization.jsonObject(with: Data(buffer: r.body)) as? [String: Any]
                #expect((page?["fixes"] as? [[String: Any]])?.compactMap { $0["t"] as? Double } == [110, 111, 112])
            }
            try await client.execute(uri: "/api/history/rooms?target=tag-7", method: .get) { r in
                #expect(String(buffer: r.body) == #"{"changes":[{"target":"tag-7","t":100.000,"from":null,"to":"lab"}],"next":null}"#)
            }
            try await client.execute(uri: "/api/history/targets", method: .get) { r in
                #expect(String(buffer: r.body) == #"[{"id":"tag-7","fixes":25,"first":100.000,"last":124.000}]"#)
            }
            try await client.execute(uri: "/api/history.gpx?target=tag-7&limit=3", method: .get) { r in
                #expect(r.status == .ok && r.headers[.contentType] == "application/gpx+xml")
                #expect(String(buffer: r.body).components(separatedBy: "<trkpt").count == 4, "three points, oldest first")
            }
            for (query, message) in [("limit=0", "limit must be"), ("from=soon", "from must be"), ("cursor=abc", "cursor"),
                                     ("order=up", "order must be"), ("colour=red", "unknown query parameter"),
                                     ("from=200&to=100", "from is after to")] {
                try await client.execute(uri: "/api/history?" + query, method: .get) { r in
                    #expect(r.status == .badRequest && String(buffer: r.body).contains(message), "\(query)")
                }
            }
        }
        try await withClient(history: store, origin: false) { client in
            try await client.execute(uri: "/api/history.gpx", method: .get) { #expect($0.status == .conflict) }
        }
        try await withClient(history: nil) { client in
            try await client.execute(uri: "/api/history", method: .get) { r in
                #expect(r.status == .notFound && String(buffer: r.body).contains("history is off"))
            }
        }
    }
}
