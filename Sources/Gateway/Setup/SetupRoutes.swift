import Devices
import Formats
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
                guard let heard = d.heard else { return GatewayRouter.problem(.notFound, "this gateway has no inputs") }
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
        default:
            preconditionFailure("\(route) is not a set-up route")
        }
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

    private static func jsonBytes(_ bytes: [UInt8]) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
