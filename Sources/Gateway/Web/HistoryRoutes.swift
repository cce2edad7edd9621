import BeaconLocation
import BlueDotCore
import Formats
import FoundationEssentials
import History
import Hummingbird
import JSON
import Positioning

/// The history's routes (`docs/gateway.md`, "History"):
/// - `GET /api/history?target=&from=&to=&limit=&cursor=&order=newest|oldest`: `{"fixes": [location lines], "next":
///   cursor or null}`, newest first by default, at most `limit` (default 1,000, at most 10,000) per page;
/// - `GET /api/history.gpx?...`: the same fixes as GPX 1.1 (oldest first, default limit 10,000, at most 100,000),
///   one track per target; 409 when the venue has no geographic origin (GPX is WGS84);
/// - `GET /api/history/rooms?...`: `{"changes": [{"target", "t", "from", "to"}], "next"}`: room changes;
/// - `GET /api/history/targets`: `[{"id", "fixes", "first", "last"}]`.
/// Times are Unix seconds or ISO 8601; a bad parameter is a 400 naming it. Without a history every route is a 404
/// saying so.
enum HistoryRoutes {
    /// A parsed request: the store and query, or the answer (an error) to give at once.
    enum Parsed {
        case query(HistoryStore, HistoryQuery)
        case answer(Response)
    }

    /// The handler of one of the history's routes, reading `store` (nil: the history is off); `hasOrigin` says
    /// whether the venue in use has a geographic origin (GPX needs one).
    static func handler(_ route: GatewayRoute, store: HistoryStore?,
                        hasOrigin: @escaping @Sendable () -> Bool) -> GatewayRouter.Handler {
        @Sendable func parsed(_ request: Request, defaultLimit: Int = 1000, maximumLimit: Int = 10_000,
                              newestFirst: Bool = true) -> Parsed {
            guard let store else { return .answer(GatewayRouter.problem(.notFound, "the history is off (history = off)")) }
            switch HistoryRequest.parse(request.uri.queryParameters, defaultLimit: defaultLimit, maximumLimit: maximumLimit,
                               newestFirst: newestFirst) {
            case .failure(let error): return .answer(GatewayRouter.problem(.badRequest, error.description))
            case .success(let q): return .query(store, q.query)
            }
        }
        @Sendable func failed(_ error: any Error) -> Response {
            let message = (error as? HistoryError)?.message ?? "\(error)"
            return GatewayRouter.problem(.internalServerError, "the history cannot be read: \(message)")
        }
        switch route {
        case .history:
            return { request, _ in
                switch parsed(request) {
                case .answer(let response): return response
                case .query(let store, let query):
                    do {
                        let page = try store.fixes(query)
                        let lines = page.records.map { LocationWriter.line($0) }
                        return GatewayRouter.json("{\"fixes\":[" + lines.joined(separator: ",") + "],\"next\":"
                            + (page.next.map { JSONText.quoted($0.description) } ?? "null") + "}")
                    } catch {
                        return failed(error)
                    }
                }
            }
        case .historyGPX:
            return { request, _ in
                switch parsed(request, defaultLimit: 10_000, maximumLimit: 100_000, newestFirst: false) {
                case .answer(let response): return response
                case .query(let store, let query):
                    guard hasOrigin() else {
                        return GatewayRouter.problem(.conflict, "GPX is WGS84 and the venue has no geographic origin")
                    }
                    do {
                        let page = try store.fixes(query)
                        var headers = HTTPFields()
                        headers[.contentType] = "application/gpx+xml"
                        headers[.contentDisposition] = "attachment; filename=\"bluedot-history.gpx\""
                        let text = GPXWriter.document(page.records).text
                        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
                    } catch {
                        return failed(error)
                    }
                }
            }
        case .historyRooms:
            return { request, _ in
                switch parsed(request) {
                case .answer(let response): return response
                case .query(let store, let query):
                    do {
                        let page = try store.roomChanges(query)
                        let items = page.records.map { c in
                            "{\"target\":\(JSONText.quoted(c.targetID)),\"t\":\(JSONText.fixed(c.timestamp, decimals: 3)),"
                                + "\"from\":\(c.from.map(JSONText.quoted) ?? "null"),\"to\":\(c.to.map(JSONText.quoted) ?? "null")}"
                        }
                        return GatewayRouter.json("{\"changes\":[" + items.joined(separator: ",") + "],\"next\":"
                            + (page.next.map { JSONText.quoted($0.description) } ?? "null") + "}")
                    } catch {
                        return failed(error)
                    }
                }
            }
        case .historyTargets:
            return { request, _ in
                guard let store else { return GatewayRouter.problem(.notFound, "the history is off (history = off)") }
                if let key = request.uri.queryParameters.first(where: { $0.key != "access_token" })?.key {
                    return GatewayRouter.problem(.badRequest, "unknown query parameter \"\(key.prefix(64))\"")
                }
                do {
                    let targets = try store.targets()
                    let items = targets.map { t in
                        "{\"id\":\(JSONText.quoted(t.id)),\"fixes\":\(t.fixes),\"first\":\(JSONText.fixed(t.first, decimals: 3)),"
                            + "\"last\":\(JSONText.fixed(t.last, decimals: 3))}"
                    }
                    return GatewayRouter.json("[" + items.joined(separator: ",") + "]")
                } catch {
                    return failed(error)
                }
            }
        default:
            preconditionFailure("\(route.rawValue) is not a history route")
        }
    }
}
