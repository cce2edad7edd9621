import CalibrationKit
import Devices
import Formats
import Positioning
import Hummingbird
import JSON
import NIOCore
import SystemIO

/// The set-up page's routes (`/setup`, docs/gateway.md "Set-up page"): what it reads (`/api/setup`,
/// `/api/venue/file`, `/api/heard`, `/api/devices`, `/api/devices/bluez`) and what it saves (`PUT /api/venue`,
/// `PUT /api/venue/plan/{floor}`, `PUT /api/devices`), through `SiteFiles`. Saving, and reading what carries keys
/// (the registry, BlueZ's), needs a gateway started `editable`: without it those answer 403 and say how to turn it
/// on. They follow the API's token rule like every other route.
enum SetupRoutes {
    /// What the page says when the gateway is not editable.
    static let howToEnable = "The set-up page saves only on a gateway started with --editable (editable = true in "
        + "its configuration file, then restart it: systemctl restart bluedot). Keep the map's address on loopback "
        + "or set a token: whoever can save can move every anchor."

    /// The largest venue or registry body taken, bytes.
    static let documentLimit = 4 << 20
    /// The largest plan image taken, bytes (as `GET /api/venue/plan` serves).
    static let imageLimit = 32 << 20

    static func get(_ route: GatewayRoute, _ d: GatewayRouter.Dependencies) -> GatewayRouter.Handler {
        switch route {
        case .setup:
            return { _, _ in
                GatewayRouter.json("{\"editable\":\(d.editable),\"mode\":\(JSONText.quoted(d.mode)),"
                    + "\"venueLoaded\":\(d.siteFiles.venueLoaded),"
                    + "\"devicesFile\":\(d.siteFiles.devicesPath != nil),"
                    + "\"howToEnable\":\(JSONText.quoted(howToEnable))}")
            }
        case .venueFile:
            return { _, _ in
                guard d.siteFiles.venueLoaded else {
                    return GatewayRouter.problem(.notFound, "no venue yet: the set-up page saves the first one")
                }
                // The file as saved keeps members the loader does not read (notes); a venue with no file is
                // written out.
                if let path = d.siteFiles.venuePath, let bytes = WholeFile.contents(path, limit: documentLimit) {
                    return jsonBytes(bytes)
                }
                return GatewayRouter.json(VenueWriter.json(d.siteFiles.venue))
            }
        case .heard:
            return { _, _ in
                guard let heard = d.heard else {
                    return GatewayRouter.problem(.notFound, "the heard list is kept by an editable gateway with inputs only")
                }
                return GatewayRouter.json(heard.json(names: d.names))
            }
        case .devices:
            return { _, _ in
                guard d.editable else { return GatewayRouter.problem(.forbidden, howToEnable) }
                if let path = d.siteFiles.devicesPath, let bytes = WholeFile.contents(path, limit: documentLimit) {
                    return jsonBytes(bytes)
                }
                return GatewayRouter.json(DeviceRegistryWriter.text(d.siteFiles.registry))
            }
        case .bluezDevices:
            return { _, _ in
                guard d.editable else { return GatewayRouter.problem(.forbidden, howToEnable) }
                do {
                    let read = try BlueZKeys.read(directory: d.bluezKeys)
                    let registry = try DeviceRegistry(devices: BlueZKeys.devices(read.entries), file: d.bluezKeys)
                    let text = DeviceRegistryWriter.text(registry).trimmingCharacters(in: .whitespacesAndNewlines)
                    // The registry's object with the notes beside its devices.
                    return GatewayRouter.json(String(text.dropLast()) + ",\"notes\":["
                        + read.notes.map(JSONText.quoted).joined(separator: ",") + "]}")
                } catch {
                    return GatewayRouter.problem(.notFound, "\(error)")
                }
            }
        case .accuracy:
            return { request, _ in
                let text = request.uri.queryParameters["floor"].map(String.init) ?? "0"
                guard let floor = Int(text), LocationQuery.floors.contains(floor) else {
                    return GatewayRouter.problem(.badRequest, "floor must be an integer, -999 ... 999")
                }
                return GatewayRouter.json(accuracy(d.siteFiles.venue, floor: floor))
            }
        case .survey:
            return { _, _ in
                guard d.editable else { return GatewayRouter.problem(.forbidden, howToEnable) }
                guard let survey = d.survey else { return GatewayRouter.problem(.notFound, "this gateway has no inputs") }
                let (points, recording) = survey.points
                return GatewayRouter.json("{\"points\":[" + points.map(pointJSON).joined(separator: ",")
                    + "],\"recording\":\(recording)}")
            }
        case .fit:
            return { _, _ in
                guard d.editable else { return GatewayRouter.problem(.forbidden, howToEnable) }
                guard let survey = d.survey else { return GatewayRouter.problem(.notFound, "this gateway has no inputs") }
                guard let fit = survey.fit(venue: d.siteFiles.venue) else {
                    return GatewayRouter.problem(.conflict, "record at least \(SurveyCollector.minimumPoints) points first")
                }
                let anchors = fit.report.anchors.map { a in
                    "\(JSONText.quoted(a.id)):{\"measuredPower\":\(number(a.measuredPowerDBm)),"
                        + "\"pathLossExponent\":\(number(a.pathLossExponent)),\"samples\":\(a.samples),"
                        + "\"flags\":[" + a.flags.map { JSONText.quoted($0.rawValue) }.joined(separator: ",") + "]}"
                }
                return GatewayRouter.json("{\"points\":\(fit.points),\"samples\":\(fit.samples),"
                    + "\"venue\":" + VenueWriter.json(fit.venue, relativeTo: d.siteFiles.venueDirectory)
                    + ",\"anchors\":{" + anchors.joined(separator: ",") + "}}")
            }
        default:
            preconditionFailure("\(route) is not a set-up route")
        }
    }

    /// The predicted accuracy (`AccuracyPlanner`: the Cramér-Rao bound from the venue's models) over `floor`'s plan
    /// bounds (else the venue's), for that floor's anchors, with where one more anchor would help most.
    static func accuracy(_ venue: Venue, floor: Int) -> String {
        var planner = AccuracyPlanner()
        let planBounds = venue.floors.first { $0.floor == floor }?.planBounds
        var onFloor = venue
        onFloor.anchors = venue.anchors.filter { $0.floor == floor }
        planner.area = planBounds ?? venue.bounds
        let area = planner.area(for: onFloor)
        // The grid stays near 10,000 cells, whatever the floor's size.
        let extent = max(area.maxX - area.minX, area.maxY - area.minY)
        planner.cellMeters = max(0.5, (extent / 100).rounded(.up))
        let anchors = PlanAnchor.anchors(of: onFloor)
        let map = planner.map(anchors: anchors, area: area)
        let heights = anchors.map(\.z).sorted()
        let suggestion = anchors.isEmpty ? nil : planner.suggest(
            count: 1, anchors: anchors, area: area, z: heights[heights.count / 2], model: venue.model,
            candidateStride: 2).first
        let points = map.points.map { p in
            "{\"x\":\(number(p.x)),\"y\":\(number(p.y)),\"crlb\":\(p.crlb.map(number) ?? "null"),\"anchors\":\(p.anchors)}"
        }
        return "{\"floor\":\(floor),\"cellMeters\":\(number(map.cellMeters)),"
            + "\"bounds\":[[\(number(map.minX)),\(number(map.minY))],[\(number(map.maxX)),\(number(map.maxY))]],"
            + "\"columns\":\(map.columns),\"rows\":\(map.rows),\"points\":[" + points.joined(separator: ",") + "],"
            + "\"p50\":\(number(map.percentile(50))),\"p90\":\(number(map.percentile(90))),\"suggestion\":"
            + (suggestion.map { "{\"x\":\(number($0.x)),\"y\":\(number($0.y)),\"p90After\":\(number($0.p90After))}" }
                ?? "null") + "}"
    }

    private static func pointJSON(_ p: SurveyCollector.Point) -> String {
        "{\"x\":\(number(p.x)),\"y\":\(number(p.y)),\"floor\":\(p.floor),\"target\":\(JSONText.quoted(p.target)),"
            + "\"samples\":\(p.samples.count),\"anchors\":\(p.anchors)}"
    }

    /// A number with at most three decimals (centimetres, tenths of a dB are what these carry).
    private static func number(_ v: Double) -> String {
        guard v.isFinite else { return "null" }
        return "\((v * 1000).rounded() / 1000)"
    }

    /// The PUT handler of `route` (`GatewayRoute.takesPut`).
    static func put(_ route: GatewayRoute, _ d: GatewayRouter.Dependencies) -> GatewayRouter.Handler {
        { request, context in
            guard d.editable else { return GatewayRouter.problem(.forbidden, howToEnable) }
            let limit = route == .plan ? imageLimit : documentLimit
            let body: ByteBuffer
            do { body = try await request.body.collect(upTo: limit) } catch {
                return GatewayRouter.problem(.contentTooLarge, "the body is larger than \(limit >> 20) MiB")
            }
            let bytes = Array(body.readableBytesView)
            do {
                switch route {
                case .venue:
                    let venue = try d.siteFiles.saveVenue(bytes)
                    return GatewayRouter.json("{\"saved\":\(JSONText.quoted(d.siteFiles.venuePath ?? "")),"
                        + "\"anchors\":\(venue.anchors.count),\"rooms\":\(venue.rooms.count)}")
                case .plan:
                    guard let text = context.parameters.get("floor"), let floor = Int(text),
                          LocationQuery.floors.contains(floor) else {
                        return GatewayRouter.problem(.badRequest, "floor must be an integer, -999 ... 999")
                    }
                    let saved = try d.siteFiles.savePlan(floor: floor, bytes: bytes)
                    return GatewayRouter.json("{\"image\":\(JSONText.quoted(saved.name)),\"width\":\(saved.width),"
                        + "\"height\":\(saved.height)}")
                case .survey:
                    return await recordSurvey(bytes, d)
                case .devices:
                    let registry = try d.siteFiles.saveRegistry(bytes)
                    return GatewayRouter.json("{\"saved\":\(JSONText.quoted(d.siteFiles.devicesPath ?? "")),"
                        + "\"devices\":\(registry.devices.count)}")
                default:
                    preconditionFailure("\(route) takes no PUT")
                }
            } catch let refusal as SiteFiles.Refusal {
                switch refusal {
                case .invalid(let message, let field):
                    var response = GatewayRouter.problem(.badRequest, message)
                    if !field.isEmpty {
                        response.body = .init(byteBuffer: ByteBuffer(string:
                            "{\"error\":\(JSONText.quoted(message)),\"field\":\(JSONText.quoted(field))}"))
                    }
                    return response
                case .noFile(let message): return GatewayRouter.problem(.conflict, message)
                case .io(let message): return GatewayRouter.problem(.internalServerError, message)
                }
            }
        }
    }

    /// `PUT /api/setup/survey`: `{"x", "y", "floor"?, "seconds"?, "target"?}`; answers once the point is recorded.
    private static func recordSurvey(_ bytes: [UInt8], _ d: GatewayRouter.Dependencies) async -> Response {
        guard let survey = d.survey else { return GatewayRouter.problem(.notFound, "this gateway has no inputs") }
        guard case .object(let members)? = try? JSONValue.parse(bytes) else {
            return GatewayRouter.problem(.badRequest, "the body is a JSON object: {\"x\", \"y\", \"floor\", \"seconds\", \"target\"}")
        }
        func value(_ key: String) -> JSONValue? { members[key] }
        func number(_ key: String) -> Double? { if case .number(let n)? = value(key) { n } else { nil } }
        guard let x = number("x"), let y = number("y"), x.isFinite, y.isFinite, abs(x) < 1e5, abs(y) < 1e5 else {
            return GatewayRouter.problem(.badRequest, "x and y: the point's venue coordinates, metres")
        }
        let floor = number("floor") ?? 0
        // Compared as a Double first: Int(-1e300) traps.
        guard floor == floor.rounded(), Double(LocationQuery.floors.lowerBound) <= floor,
              floor <= Double(LocationQuery.floors.upperBound) else {
            return GatewayRouter.problem(.badRequest, "floor must be an integer, -999 ... 999")
        }
        let seconds = number("seconds") ?? 10
        guard (2...30).contains(seconds) else { return GatewayRouter.problem(.badRequest, "seconds: 2 ... 30") }
        var target: String?
        if let given = value("target") {
            guard case .string(let id) = given else { return GatewayRouter.problem(.badRequest, "target: an id") }
            target = id
        }
        // Tag mode records a device the gateway hears now: one it does not would give an empty point.
        if d.mode == "tag", let target, d.heard?.hears(target) != true {
            return GatewayRouter.problem(.badRequest, "target: \(target.prefix(64)) is not heard now; enrol the device "
                + "you carry (Devices) and keep it with you")
        }
        do {
            let point = try await survey.record(x: x, y: y, floor: Int(floor), seconds: seconds, target: target)
            return GatewayRouter.json("{\"point\":" + pointJSON(point) + ",\"points\":\(survey.points.done.count)}")
        } catch {
            switch error {
            case .busy: return GatewayRouter.problem(.conflict, "another point is being recorded")
            case .noTarget:
                return GatewayRouter.problem(.badRequest, "target: in tag mode, the id of the device you carry")
            }
        }
    }

    private static func jsonBytes(_ bytes: [UInt8]) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
