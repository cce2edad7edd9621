import Positioning

extension ImportedVenue {
    /// This import merged into `existing` (`bluedot venue import --venue EXISTING.json`), for rooms, floors and
    /// openings drawn in another tool over a venue whose anchors are already placed. Import about
    /// `existing.origin` (the importers' `origin:`) so that both are in one frame.
    ///
    /// The result is `existing` (its name, origin, model and anchors) with: the imported floors it lacks added (when
    /// it lists no floors, the floors its anchors, rooms and openings stand on are listed first, unnamed, so that
    /// they stay valid), and
    /// a name given to its unnamed floors the import names; imported rooms and openings replacing those of the same
    /// id in place (a re-import updates) and the others appended; bounds enclosing both. The import's notes are
    /// kept and one line says what changed.
    public func merged(into existing: Venue) -> ImportedVenue {
        var v = existing
        if v.floors.isEmpty {
            let used = existing.anchors.map(\.floor) + existing.rooms.map(\.floor) + existing.openings.map(\.floor)
            v.floors = Set(used).sorted().map { Venue.Floor(floor: $0) }
        }
        var floorsAdded = 0
        for f in venue.floors {
            if let i = v.floors.firstIndex(where: { $0.floor == f.floor }) {
                if v.floors[i].name == nil { v.floors[i].name = f.name }
            } else {
                v.floors.append(f)
                floorsAdded += 1
            }
        }
        let (rooms, roomsReplaced) = Self.replacingOrAppending(v.rooms, venue.rooms, id: \.id)
        let (openings, openingsReplaced) = Self.replacingOrAppending(v.openings, venue.openings, id: \.id)
        v.rooms = rooms
        v.openings = openings
        v.origin = existing.origin ?? venue.origin
        v.bounds = PlanGeometry.union(existing.bounds, venue.bounds)
        let note = "merged into \(existing.name): \(venue.rooms.count - roomsReplaced) rooms added, "
            + "\(roomsReplaced) replaced; \(venue.openings.count - openingsReplaced) openings added, "
            + "\(openingsReplaced) replaced; \(floorsAdded) floors added"
        return ImportedVenue(venue: v, notes: notes + [note])
    }

    /// `old` with each element of `new` replacing the one of the same id, or appended; and how many replaced.
    private static func replacingOrAppending<T>(_ old: [T], _ new: [T], id: (T) -> String) -> ([T], Int) {
        var result = old
        var index: [String: Int] = [:]
        for (i, element) in old.enumerated() { index[id(element)] = i }
        var replaced = 0
        for element in new {
            if let i = index[id(element)] {
                result[i] = element
                replaced += 1
            } else {
                index[id(element)] = result.count
                result.append(element)
            }
        }
        return (result, replaced)
    }
}
