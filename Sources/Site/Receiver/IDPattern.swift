/// A beacon-id glob of the receiver's allow-list: `*` matches any run of characters (also none), `?` one
/// character, everything else itself, case-insensitively (canonical ids are lower case).
/// `ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:*` allows one UUID's beacons; `mac:*` every unknown device.
public struct IDPattern: Sendable, Hashable, CustomStringConvertible {
    /// The glob as given.
    public let pattern: String
    private let characters: [Character]

    /// A pattern; nil when empty.
    public init?(_ pattern: String) {
        guard !pattern.isEmpty else { return nil }
        self.pattern = pattern
        characters = Array(pattern.lowercased())
    }

    public var description: String { pattern }

    /// Whether `id` matches the whole pattern.
    public func matches(_ id: String) -> Bool {
        let text = Array(id.lowercased())
        // Iterative glob match with one backtrack point for the last `*` (linear for typical patterns).
        var p = 0, t = 0
        var star: Int?, starText = 0
        while t < text.count {
            if p < characters.count, characters[p] == "?" || characters[p] == text[t] {
                p += 1
                t += 1
            } else if p < characters.count, characters[p] == "*" {
                star = p
                starText = t
                p += 1
            } else if let s = star {
                p = s + 1
                starText += 1
                t = starText
            } else {
                return false
            }
        }
        while p < characters.count, characters[p] == "*" { p += 1 }
        return p == characters.count
    }

    /// Whether `id` passes an allow-list: an empty list allows every id.
    public static func allows(_ list: [IDPattern], _ id: String) -> Bool {
        list.isEmpty || list.contains { $0.matches(id) }
    }
}
