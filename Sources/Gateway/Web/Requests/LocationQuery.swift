import Positioning

/// The query of `GET /api/locations` and `GET /api/feed`, validated: `target` (an id, at most 128 printable
/// characters), `floor` (an integer) and `access_token` (checked by the auth middleware); anything else is 400.
package struct LocationQuery: Sendable, Hashable {
    package var target: String?
    package var floor: Int?

    package init() {}

    package static func parse(_ parameters: some Sequence<(key: Substring, value: Substring)>) -> Result<LocationQuery, QueryError> {
        var query = LocationQuery()
        for (key, value) in parameters {
            switch key {
            case "target":
                guard !value.isEmpty, value.count <= 128, value.unicodeScalars.allSatisfy({ $0.value >= 0x20 }) else {
                    return .failure(QueryError("target must be 1 ... 128 printable characters"))
                }
                query.target = String(value)
            case "floor":
                guard let level = Int(value), abs(level) < 1000 else {
                    return .failure(QueryError("floor must be an integer"))
                }
                query.floor = level
            case "access_token": continue
            default: return .failure(QueryError("unknown query parameter \"\(key.prefix(64))\""))
            }
        }
        return .success(query)
    }

    package func matches(_ fix: LocationFix) -> Bool {
        (target == nil || fix.target == target) && (floor == nil || fix.floor == floor)
    }
}

/// A bad query, in words.
package struct QueryError: Error, Sendable, Hashable, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
