import BlueDotCore
import Positioning

/// The query of `GET /api/locations` and `GET /api/feed`, validated: `target` (an id, 1 ... 128 printable
/// characters), `floor` (an integer, -999 ... 999) and `access_token` (checked by the auth middleware); anything else
/// is 400.
package struct LocationQuery: Sendable, Hashable {
    package var target: String?
    package var floor: Int?

    /// The floor numbers a request may name (`floor`, the plan's path), as the OpenAPI document says.
    package static let floors = -999...999

    package init() {}

    /// Whether `value` is a target id a request may name: 1 ... 128 characters counted as Unicode code points (as
    /// JSON Schema's `maxLength` counts them), none of them a control character below U+0020.
    package static func isTarget(_ value: Substring) -> Bool {
        (1...128).contains(value.unicodeScalars.count) && value.unicodeScalars.allSatisfy { $0.value >= 0x20 }
    }

    package static func parse(_ parameters: some Sequence<(key: Substring, value: Substring)>) -> Result<LocationQuery, QueryError> {
        var query = LocationQuery()
        for (key, value) in parameters {
            switch key {
            case "target":
                guard Self.isTarget(value) else {
                    return .failure(QueryError("target must be 1 ... 128 printable characters"))
                }
                query.target = String(value)
            case "floor":
                guard let level = Int(value), Self.floors.contains(level) else {
                    return .failure(QueryError("floor must be an integer, -999 ... 999"))
                }
                query.floor = level
            case "access_token": continue
            default: return .failure(QueryError("unknown query parameter \"\(key.prefix(64))\""))
            }
        }
        return .success(query)
    }

    package func matches(_ fix: Location) -> Bool {
        (target == nil || fix.targetID == target) && (floor == nil || fix.floor == floor)
    }
}

/// A bad query, in words.
package struct QueryError: Error, Sendable, Hashable, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
