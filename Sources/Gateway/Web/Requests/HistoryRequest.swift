import BlueDotCore
import History

/// The query of the history's routes (`HistoryRoutes`), validated: `target`, `from`, `to`, `limit`, `cursor`,
/// `order` and `access_token`; anything else is 400. No Hummingbird here: the fuzz target `http` parses with it.
package struct HistoryRequest: Sendable, Hashable {
    /// The store's query.
    package var query = HistoryQuery()

    /// Parses the query parameters of a request; `limit` defaults to `defaultLimit` and may not exceed
    /// `maximumLimit`.
    package static func parse(_ parameters: some Sequence<(key: Substring, value: Substring)>, defaultLimit: Int,
                              maximumLimit: Int, newestFirst: Bool) -> Result<HistoryRequest, QueryError> {
        var q = HistoryRequest()
        q.query.limit = defaultLimit
        q.query.newestFirst = newestFirst
        for (key, value) in parameters {
            switch key {
            case "target":
                guard LocationQuery.isTarget(value)
                else { return .failure(QueryError("target must be 1 ... 128 printable characters")) }
                q.query.target = String(value)
            case "from", "to":
                guard let t = time(String(value)) else {
                    return .failure(QueryError("\(key) must be Unix seconds or an ISO 8601 time, got \"\(value.prefix(64))\""))
                }
                if key == "from" { q.query.from = t } else { q.query.to = t }
            case "limit":
                guard let n = Int(value), n >= 1, n <= maximumLimit else {
                    return .failure(QueryError("limit must be 1 ... \(maximumLimit)"))
                }
                q.query.limit = n
            case "cursor":
                // The form of every `next` (a time and a row), as the OpenAPI document's pattern says.
                guard value.wholeMatch(of: #/-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?,[0-9]+/#) != nil,
                    let cursor = HistoryCursor(String(value))
                else {
                    return .failure(QueryError("cursor is not one this API gave (its \"next\")"))
                }
                q.query.cursor = cursor
            case "order":
                switch value {
                case "newest": q.query.newestFirst = true
                case "oldest": q.query.newestFirst = false
                default: return .failure(QueryError("order must be newest or oldest"))
                }
            case "access_token": continue
            default: return .failure(QueryError("unknown query parameter \"\(key.prefix(64))\""))
            }
        }
        if let from = q.query.from, let to = q.query.to, from > to {
            return .failure(QueryError("from is after to"))
        }
        return .success(q)
    }

    /// Unix seconds, or an RFC 3339 time (ISO 8601 with a zone) with or without fractional seconds. As RFC 3339
    /// §5.6 allows, `T` and `Z` may be lower case, and the seconds 60 (a leap second: the next second's start).
    package static func time(_ text: String) -> Double? {
        if let t = Double(text), t.isFinite { return t }
        let upper = text.uppercased()
        if let t = InternetTime.parse(upper) { return t }
        guard let leap = upper.firstMatch(of: #/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:(60)/#) else { return nil }
        var second = upper
        second.replaceSubrange(leap.output.1.startIndex..<leap.output.1.endIndex, with: "59")
        return InternetTime.parse(second).map { $0 + 1 }
    }
}
