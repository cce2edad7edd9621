import Positioning

/// The levels of `level.geojson`: each level's floor (its ordinal) and geometry, and the venue's floors.
struct IMDFLevels {
    /// One level.
    struct Level {
        /// The feature's id, which units and openings name as their `level_id`.
        var id: String
        /// Its ordinal.
        var floor: Int
        /// Its outline (for the venue's bounds and, failing better, its origin).
        var polygons: [[[GeoPosition]]]
    }

    /// The levels in file order.
    var all: [Level] = []
    /// The floors, by ordinal.
    var floors: [Venue.Floor] = []
    /// Each level's floor, by level id.
    var floorOfLevel: [String: Int] = [:]
    /// How errors name the file.
    var file: String

    /// Reads `level.geojson`.
    init(_ archive: IMDFArchive, language: String?, notes: inout [String]) throws(VenueImportError) {
        file = archive.label("level.geojson")
        var byOrdinal: [Int: (floor: Venue.Floor, level: String)] = [:]
        for f in try IMDFImport.features("level.geojson", archive) {
            guard let id = f.id else { throw f.error("id", "missing") }
            let (floor, polygons) = try f.read { (c) throws(VenueError) in
                let p = try c.required("properties")
                var name = try p.optional("name")?.label(language: language)
                if name == nil { name = try p.optional("short_name")?.label(language: language) }
                let floor = Venue.Floor(floor: try p.required("ordinal").integer(), name: name,
                                        elevationMeters: try p.optional("elevation")?.number() ?? 0)
                return (floor, try c.required("geometry").polygons(geographic: true))
            }
            guard floorOfLevel[id] == nil else { throw f.error("id", "duplicate level id \"\(id)\"") }
            if let shared = byOrdinal[floor.floor] {
                if shared.floor.name != floor.name {
                    notes.append("\(file): levels \(shared.level) and \(id) share ordinal \(floor.floor); floor "
                                 + "\(floor.floor) is named after the first (\(shared.floor.name ?? "no name"))")
                }
            } else {
                byOrdinal[floor.floor] = (floor, id)
            }
            floorOfLevel[id] = floor.floor
            all.append(Level(id: id, floor: floor.floor, polygons: polygons))
        }
        guard !all.isEmpty else { throw VenueImportError(file: file, path: "features", message: "no level") }
        floors = byOrdinal.values.map(\.floor).sorted { $0.floor < $1.floor }
    }

    /// The floor of the level a feature names in `properties.level_id`.
    func floor(_ f: GeoJSONFeature) throws(VenueImportError) -> Int {
        let levelID = try f.read { (c) throws(VenueError) in
            try c.required("properties").required("level_id").string()
        }
        guard let floor = floorOfLevel[levelID] else {
            throw f.error("properties.level_id", "no level \"\(levelID)\" in \(file)")
        }
        return floor
    }
}

/// The units of `unit.geojson` that become rooms, and a count of those left out by category.
struct IMDFUnits {
    /// One unit.
    struct Unit {
        /// Where it came from, for errors.
        var feature: GeoJSONFeature
        /// The feature's id: the room's (with `:n` per polygon of a MultiPolygon).
        var id: String
        /// Its `name` label.
        var name: String?
        /// Its level's ordinal.
        var floor: Int
        /// Its polygons in longitude/latitude.
        var polygons: [[[GeoPosition]]]
    }

    /// The units that become rooms, in file order.
    var all: [Unit] = []
    /// How many units of each category of `IMDFImport.categoriesLeftOut` were left out.
    var leftOut: [String: Int] = [:]

    /// Reads `unit.geojson` (none when absent).
    init(_ archive: IMDFArchive, levels: IMDFLevels, language: String?) throws(VenueImportError) {
        for f in try IMDFImport.features("unit.geojson", archive) {
            guard let id = f.id else { throw f.error("id", "missing") }
            let (category, name, polygons) = try f.read { (c) throws(VenueError) in
                let p = try c.required("properties")
                return (try p.optional("category")?.string(), try p.optional("name")?.label(language: language),
                        try c.required("geometry").polygons(geographic: true))
            }
            let floor = try levels.floor(f)
            if let category, IMDFImport.categoriesLeftOut.contains(category) {
                leftOut[category, default: 0] += 1
                continue
            }
            all.append(Unit(feature: f, id: id, name: name, floor: floor, polygons: polygons))
        }
    }
}

/// The openings of `opening.geojson`.
struct IMDFOpenings {
    /// One opening feature (a `MultiLineString` gives one opening per line, `<id>:1`, `<id>:2`, ...).
    struct Opening {
        /// Where it came from, for errors.
        var feature: GeoJSONFeature
        /// The feature's id.
        var id: String
        /// Its level's ordinal.
        var floor: Int
        /// Its `category` (`pedestrian`, ...).
        var category: String?
        /// Its lines in longitude/latitude.
        var lines: [[GeoPosition]]

        /// The venue's openings of this feature, projected.
        func openings(_ plane: LocalTangentPlane) throws(VenueImportError) -> [Venue.Opening] {
            var result: [Venue.Opening] = []
            for (i, line) in lines.enumerated() {
                let points = line.map { PlanGeometry.point($0, plane: plane) }
                if let problem = VenueRules.lineProblem(points) {
                    throw feature.error("geometry.coordinates", problem)
                }
                result.append(Venue.Opening(id: lines.count > 1 ? "\(id):\(i + 1)" : id, floor: floor,
                                            category: category, line: points))
            }
            return result
        }
    }

    /// The openings in file order.
    var all: [Opening] = []

    /// Reads `opening.geojson` (none when absent); ids must be unique.
    init(_ archive: IMDFArchive, levels: IMDFLevels) throws(VenueImportError) {
        var seen: Set<String> = []
        for f in try IMDFImport.features("opening.geojson", archive) {
            guard let id = f.id else { throw f.error("id", "missing") }
            guard seen.insert(id).inserted else { throw f.error("id", "duplicate opening id \"\(id)\"") }
            let (category, lines) = try f.read { (c) throws(VenueError) in
                (try c.required("properties").optional("category")?.string(),
                 try c.required("geometry").lines(geographic: true))
            }
            all.append(Opening(feature: f, id: id, floor: try levels.floor(f), category: category, lines: lines))
        }
    }
}
