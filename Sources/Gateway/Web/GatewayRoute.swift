import Hummingbird

/// Every route of the API and the metrics, in one table: the router registers a handler for each
/// (`GatewayRouter.build`), `RouteTableMiddleware` answers a method a route does not take with 405 and its `Allow`,
/// and the tests hold the OpenAPI document (`/api/openapi.json`) to exactly these paths. The page and Leaflet are
/// served beside it by Hummingbird's `FileMiddleware` (`StaticFiles`).
package enum GatewayRoute: String, CaseIterable, Sendable {
    case venue = "/api/venue"
    case venueFile = "/api/venue/file"
    case plan = "/api/venue/plan/{floor}"
    case setup = "/api/setup"
    case accuracy = "/api/setup/accuracy"
    case survey = "/api/setup/survey"
    case fit = "/api/setup/fit"
    case heard = "/api/heard"
    case devices = "/api/devices"
    case bluezDevices = "/api/devices/bluez"
    case display = "/api/display"
    case locations = "/api/locations"
    case feed = "/api/feed"
    case health = "/api/health"
    case rooms = "/api/rooms"
    case receivers = "/api/receivers"
    case sites = "/api/sites"
    case siteVenue = "/api/sites/{site}/venue"
    case calibration = "/api/calibration"
    case history = "/api/history"
    case historyGPX = "/api/history.gpx"
    case historyRooms = "/api/history/rooms"
    case historyTargets = "/api/history/targets"
    case openAPI = "/api/openapi.json"
    case metrics = "/metrics"

    /// The path as the OpenAPI document writes it (`{floor}` for a path parameter).
    package var template: String { rawValue }

    /// The methods the route takes: GET, and HEAD, which the router answers from GET without the body; PUT where
    /// the set-up page saves (`SetupRoutes`: refused with 403 unless the gateway is editable).
    package var methods: [HTTPRequest.Method] { takesPut ? [.get, .head, .put] : [.get, .head] }

    /// Whether the route takes PUT: the venue, a floor's plan image, the device registry and a survey point.
    package var takesPut: Bool { self == .venue || self == .plan || self == .devices || self == .survey }

    /// The methods as an `Allow` header lists them (RFC 9110 §10.2.1).
    package var allowHeader: String { methods.map(\.rawValue).joined(separator: ", ") }

    /// The path in the router's own syntax (`:floor` for a path parameter).
    var routerPath: RouterPath {
        RouterPath(template.split(separator: "/").map { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}") ? ":" + segment.dropFirst().dropLast() : segment
        }.joined(separator: "/"))
    }

    /// The route a request path names, matched as the router matches it: by `/`-separated segments, empty ones
    /// left out, a path parameter standing for any one segment; nil when no route has that path.
    package init?(path: String) {
        let segments = path.split(separator: "/")
        let route = Self.allCases.first { route in
            let pattern = route.template.split(separator: "/")
            return pattern.count == segments.count && zip(pattern, segments).allSatisfy { expected, given in
                expected == given || expected.hasPrefix("{")
            }
        }
        guard let route else { return nil }
        self = route
    }
}
