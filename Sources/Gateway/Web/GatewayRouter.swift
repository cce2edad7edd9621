import BeaconLocation
import BlueDotCore
import Formats
import History
import Hummingbird
import JSON
import LocationBus
import LocationDisplay
import Logging
import NIOCore
import Positioning
import Site
import SystemIO

/// The daemon's HTTP routes: the page and Leaflet (`StaticFiles`), the venue, the display engine's
/// auto-pan settings, current locations, the push feed, rooms with their occupancy, the history, a site's receivers,
/// health and metrics, behind the bearer token when one is set.
public enum GatewayRouter {
    /// What the routes read.
    public struct Dependencies: Sendable {
        /// Current locations and the feed (an observer of `source`).
        public var hub: LocationHub
        /// The metrics.
        public var metrics: GatewayMetrics
        /// The venue and the registry in use, replaced while running (`SiteFiles`).
        public var siteFiles: SiteFiles
        /// Whether the set-up page may save (`editable`); without it every PUT is 403.
        public var editable: Bool
        /// What the gateway hears now (`/api/heard`), when it has inputs to hear.
        var heard: HeardList?
        /// The quick calibration's survey points (`/api/setup/survey`), when it has inputs to hear.
        var survey: SurveyCollector?
        /// BlueZ's key folder, for `/api/devices/bluez`.
        public var bluezKeys: String
        /// Self or tag mode, for the set-up page.
        public var mode: String
        /// The page and Leaflet.
        public var files: StaticFiles
        /// Bearer token for /api and /metrics (nil: open).
        public var token: String?
        /// What `/api/health` says about the inputs.
        public var sourceName: String
        /// The spine's location source (its status goes in `/api/health`).
        public var source: LocationSource
        /// The clock.
        public var clock: any BlueDotClock
        /// The solver's site input, when there is one (`/api/receivers`).
        public var site: SiteSource?
        /// The live scans among the inputs (`/api/health`'s `scan`).
        public var scanners: [ScannerSource] = []
        /// The campus view's input, when the daemon is one (`/api/sites`).
        public var campus: CampusSource?
        /// The venue's rooms with their occupancy (`/api/rooms`), when the venue has rooms.
        public var rooms: RoomOccupancySource?
        /// The location history (`/api/history...`), when it is on.
        public var history: HistoryStore?
        /// Display names by target id (the device registry's in use, `DeviceRegistry.names`): `/api/locations` and
        /// the page's labels.
        public var names: [String: String] { siteFiles.registry.names }
        /// What self-calibration learned (`/api/calibration`), when it is on.
        public var calibration: LearnedCalibrationKeeper?

        /// Bundles the dependencies; without `siteFiles`, `venue` is the venue, fixed, with no registry.
        public init(
            hub: LocationHub, metrics: GatewayMetrics, venue: Venue, files: StaticFiles, token: String?,
            sourceName: String, source: LocationSource, clock: any BlueDotClock, site: SiteSource? = nil,
            rooms: RoomOccupancySource? = nil, history: HistoryStore? = nil, siteFiles: SiteFiles? = nil,
            calibration: LearnedCalibrationKeeper? = nil, editable: Bool = false, mode: String = "self",
            bluezKeys: String = "/var/lib/bluetooth"
        ) {
            self.siteFiles = siteFiles ?? SiteFiles(
                venuePath: nil, venue: venue, venueLoaded: true, devicesPath: nil, registry: .empty,
                logger: Logger(label: "bluedot.gateway"))
            self.editable = editable
            self.mode = mode
            self.bluezKeys = bluezKeys
            self.calibration = calibration
            self.site = site
            self.rooms = rooms
            self.history = history
            self.hub = hub
            self.metrics = metrics
            self.files = files
            self.token = token
            self.sourceName = sourceName
            self.source = source
            self.clock = clock
        }
    }

    /// What a route answers with.
    typealias Handler = @Sendable (Request, GatewayRequestContext) async throws -> Response

    /// Builds the router: a GET and a HEAD handler for every route of the table (`GatewayRoute`), 405 for a method
    /// a route does not take.
    public static func build(_ d: Dependencies) -> Router<GatewayRequestContext> {
        let router = Router(context: GatewayRequestContext.self)
        if let token = d.token { router.add(middleware: BearerAuthMiddleware(token: token)) }
        router.add(middleware: RouteTableMiddleware())
        for middleware: any MiddlewareProtocol<Request, Response, GatewayRequestContext> in d.files.middlewares() {
            router.add(middleware: middleware)
        }
        for route in GatewayRoute.allCases {
            let get = handler(route, d)
            router.get(route.routerPath, use: get)
            router.head(route.routerPath, use: headers(of: get))
            if route.takesPut { router.put(route.routerPath, use: SetupRoutes.put(route, d)) }
        }
        return router
    }

    /// HEAD: the status and headers GET would give, `Content-Length` included when GET knows it (RFC 9110 §9.3.2);
    /// the server sends no body.
    static func headers(of get: @escaping Handler) -> Handler {
        { request, context in
            let response = try await get(request, context)
            return Response(status: response.status, headers: response.headers, body: ResponseBody { writer in
                try await writer.finish(nil)
            })
        }
    }

    /// The handler of one route; whatever it serves from the configuration is made once, here.
    static func handler(_ route: GatewayRoute, _ d: Dependencies) -> Handler {
        switch route {
        case .venue:
            // Made again only when the venue changed.
            let cached = LockedValue<(revision: Int, json: String)?>(nil)
            return { _, _ in
                let revision = d.siteFiles.revision
                if let hit = cached.value, hit.revision == revision { return json(hit.json) }
                let text = VenueDocument(d.siteFiles.venue).json()
                cached.withLock { $0 = (revision, text) }
                return json(text)
            }
        case .venueFile, .setup, .heard, .devices, .bluezDevices, .accuracy, .survey, .fit:
            return SetupRoutes.get(route, d)
        case .plan:
            return { _, context in
                guard let text = context.parameters.get("floor"), let level = Int(text), LocationQuery.floors.contains(level)
                else { return problem(.badRequest, "floor must be an integer, -999 ... 999") }
                guard let image = d.siteFiles.venue.floors.first(where: { $0.floor == level })?.planImage,
                    let data = WholeFile.contents(image, limit: 32 << 20)
                else { return problem(.notFound, "no plan for floor \(level)") }
                let type = image.split(separator: ".").last.flatMap { MediaType.getMediaType(forExtension: String($0)) }
                var headers = HTTPFields()
                headers[.contentType] = type?.description ?? "application/octet-stream"
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
            }
        case .display:
            let settings = d.hub.settings
            return { _, _ in
                json("{\"wanderExtentFactor\":\(settings.wanderExtentFactor),"
                    + "\"navigationPointHeightFactor\":\(settings.navigationPointHeightFactor),"
                    + "\"initialZoomScale\":\(settings.initialZoomScale.map { "\($0)" } ?? "null"),"
                    + "\"staleAfterSeconds\":\(settings.staleAfterSeconds),"
                    + "\"targetNames\":{" + d.names.sorted { $0.key < $1.key }
                        .map { "\(JSONText.quoted($0.key)):\(JSONText.quoted($0.value))" }.joined(separator: ",") + "}}")
            }
        case .locations:
            return { request, _ in
                switch LocationQuery.parse(request.uri.queryParameters) {
                case .failure(let error): return problem(.badRequest, error.description)
                case .success(let query):
                    let fixes = d.hub.current.filter(query.matches)
                    let names = d.names
                    return json("[" + fixes.map { fix in
                        let line = LocationWriter.line(fix)
                        // The registry's name beside the id: the line's object with one more member.
                        guard let name = names[fix.targetID], line.hasSuffix("}") else { return line }
                        return line.dropLast() + ",\"name\":\(JSONText.quoted(name))}"
                    }.joined(separator: ",") + "]")
                }
            }
        case .feed:
            return { request, context in feed(request, hub: d.hub, on: context.eventLoop) }
        case .health:
            let started = d.clock.now()
            return { _, _ in
                let now = d.clock.now()
                return json(
                    "{\"status\":\"ok\",\"source\":\(JSONText.quoted(d.sourceName)),"
                        + "\"sourceStatus\":\(JSONText.quoted(d.source.status.description)),"
                        + "\"targets\":\(d.hub.targetCount),"
                        + (d.site.map { "\"broker\":\($0.client.isConnected ? "\"connected\"" : "\"reconnecting\""),"
                              + "\"receivers\":\($0.receivers.count)," } ?? "")
                        + (d.scanners.isEmpty ? "" : "\"scan\":\(JSONText.quoted(scanState(d.scanners))),")
                        + (d.campus.map { "\"broker\":\($0.client.isConnected ? "\"connected\"" : "\"reconnecting\""),"
                              + "\"staleSites\":\($0.sites.filter(\.isStale).count)," } ?? "")
                        + "\"subscribers\":\(d.hub.subscriberCount),\"uptime\":\(FeedEvent.number(now - started, decimals: 1))}")
            }
        case .rooms:
            return { _, _ in json(RoomsDocument.json(d.rooms)) }
        case .receivers:
            return { _, _ in json(ReceiversDocument.json(d.site, now: d.clock.now())) }
        case .sites:
            return { _, _ in json(SitesDocument.json(d.campus, targets: d.hub.current, now: d.clock.now())) }
        case .siteVenue:
            return { _, context in
                guard let name = context.parameters.get("site"),
                    let site = d.campus?.sites.first(where: { $0.site == name })
                else { return problem(.notFound, "no such site") }
                guard let venue = site.venue else {
                    return problem(.notFound, site.venueError.map { "the site's venue cannot be read: \($0)" }
                        ?? "the site's solver has not published its venue")
                }
                return json(VenueDocument(venue).json())
            }
        case .calibration:
            return { _, _ in
                guard let document = d.calibration?.document else {
                    return problem(.notFound, "self-calibration is off (self-calibration = false, or no beacon inputs)")
                }
                return json(document)
            }
        case .history, .historyGPX, .historyRooms, .historyTargets:
            return HistoryRoutes.handler(route, store: d.history) { d.siteFiles.venue.origin != nil }
        case .openAPI:
            let document = WholeFile.contents(GatewayResources.openAPIDocument, limit: 32 << 20)
            return { _, _ in
                guard let document else {
                    return problem(.internalServerError, GatewayResources.missingMessage)
                }
                var headers = HTTPFields()
                headers[.contentType] = "application/json"
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: document)))
            }
        case .metrics:
            return { _, _ in
                d.metrics.targetsTracked.set(Double(d.hub.targetCount))
                d.metrics.feedSubscribers.set(Double(d.hub.subscriberCount))
                var headers = HTTPFields()
                headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: d.metrics.exposition())))
            }
        }
    }

    /// The push feed: `retry`, the current fix of every target, then live events until the hub closes. A HEAD
    /// request gets the headers only, without subscribing.
    static func feed(_ request: Request, hub: LocationHub, on eventLoop: any EventLoop) -> Response {
        switch LocationQuery.parse(request.uri.queryParameters) {
        case .failure(let error): return problem(.badRequest, error.description)
        case .success(let query) where query != LocationQuery(): return problem(.badRequest, "the feed takes no filters")
        case .success: break
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        guard request.method != .head else {
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in try await writer.finish(nil) })
        }
        let batches = hub.subscribeInBatches()
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                try await withTaskExecutorPreference(EventLoopTaskExecutor(eventLoop)) {
                    try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
                    for await batch in batches { try await writer.write(feedFrames(batch)) }
                    try await writer.finish(nil)
                }
            })
    }

    /// A feed message's SSE frame, written straight into the buffer the connection sends (no array in between).
    public static func feedFrame(_ message: FeedMessage) -> ByteBuffer {
        feedFrames([message])
    }

    /// The SSE frames of a batch of feed messages, one after another in one buffer: one write to the connection.
    public static func feedFrames(_ messages: [FeedMessage]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(messages.count * FeedEvent.frameBytesEstimate)
        for message in messages {
            var room = FeedEvent.frameBytesEstimate
            while true {
                let written = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: room) { raw in
                    JSONText.write(into: raw) { message.event.writeFrame(id: message.id, to: &$0) } ?? 0
                }
                if written > 0 { break }
                room *= 2
            }
        }
        return buffer
    }

    /// `/api/health`'s `scan`: `not running` when a scanner's link is down or being set up, else `stalled` when one
    /// is silent past its limit, else `running`.
    static func scanState(_ scanners: [ScannerSource]) -> String {
        if !scanners.allSatisfy(\.isScanning) { return "not running" }
        return scanners.contains(where: \.isStalled) ? "stalled" : "running"
    }

    static func json(_ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func problem(_ status: HTTPResponse.Status, _ message: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(
            status: status, headers: headers,
            body: .init(byteBuffer: ByteBuffer(string: "{\"error\":\(JSONText.quoted(message))}")))
    }
}
