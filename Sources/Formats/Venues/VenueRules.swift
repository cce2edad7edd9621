import Positioning

/// The shape rules every venue's rooms and openings follow, whether `VenueLoader` reads them from a venue file or
/// an importer (`ESPresenseConfigImport`, `IMDFImport`, `GeoJSONImport`) makes them: one place, so that whatever
/// an importer writes the loader reads back.
enum VenueRules {
    /// The fewest corners of a room's ring (outline or hole).
    static let minimumRingCorners = 3
    /// The fewest points of an opening's line.
    static let minimumLinePoints = 2

    /// The corners of a ring: its points, a closing repeat of the first not counted.
    static func corners(_ ring: [Venue.PlanPoint]) -> Int {
        ring.count > 1 && ring.first == ring.last ? ring.count - 1 : ring.count
    }

    /// Why `ring` cannot outline a room or a hole (too few corners), or nil when it can.
    static func ringProblem(_ ring: [Venue.PlanPoint]) -> String? {
        let n = corners(ring)
        return n >= minimumRingCorners ? nil : "expected at least \(minimumRingCorners) points, got \(n)"
    }

    /// Why `line` cannot be an opening's line (too few points), or nil when it can.
    static func lineProblem(_ line: [Venue.PlanPoint]) -> String? {
        line.count >= minimumLinePoints ? nil : "expected at least \(minimumLinePoints) points, got \(line.count)"
    }
}
