import FoundationEssentials
import JSON
import Positioning

/// Turns an archive of Apple's Indoor Mapping Data Format (OGC Community Standard 20-094, IMDF 1.0) into a venue:
/// levels become floors, units rooms and openings openings, projected from WGS84 to venue metres about the venue's
/// origin (`docs/formats.md`, "Importing IMDF and GeoJSON").
///
/// Read, from a folder or a zip (`IMDFArchive`); every other file and property is ignored:
/// - `level.geojson` (required): each level's `ordinal` is its floor; `name`, else `short_name`, names it (an
///   IMDF label object read as `GeoJSONFeature` labels are: `en` first); a non-standard numeric `elevation`
///   property is kept. Levels sharing an ordinal (two buildings) share a floor, named after the first.
/// - `unit.geojson`: each unit a room, id the feature's id, named by its `name` label, on its `level_id`'s floor.
///   A `MultiPolygon` gives one room per polygon (`<id>:1`, `<id>:2`, ..., all of the unit's name: a shop in two
///   parts is still that shop); holes are kept. Units of `categoriesLeftOut` (solid structure, voids) are counted
///   and left out: no one stands in them.
/// - `opening.geojson`: each opening (a `LineString` along a wall) an opening of the venue with its `category`.
/// - `venue.geojson`: its `name` names the venue (unless one is given), its `display_point` is the origin; without
///   one, the centroid of its geometry, else of the footprints, the levels, the units.
/// - `footprint.geojson` and the levels' geometries: the venue's `bounds`.
/// - `manifest.json`: its `language` orders the labels after English.
/// The origin is written with bearing 0 (+y is north). Imported venues have no anchors.
public enum IMDFImport {
    /// Unit categories that are not places to be in: `structure` (walls, columns, solid mass) and `opentobelow`
    /// (the void over an atrium).
    public static let categoriesLeftOut: Set<String> = ["structure", "opentobelow"]

    /// Reads and converts the archive (folder or zip) at `path`; see `convert`.
    public static func load(path: String, venueName: String? = nil, origin: Venue.Origin? = nil)
        throws(VenueImportError) -> ImportedVenue
    {
        try convert(try IMDFArchive.open(path: path), venueName: venueName, origin: origin)
    }

    /// Converts an archive. The venue is named `venueName`, else by the venue feature, else after the archive;
    /// `origin` (the origin of a venue the result will be merged into) replaces the archive's own.
    public static func convert(_ archive: IMDFArchive, venueName: String? = nil, origin given: Venue.Origin? = nil)
        throws(VenueImportError) -> ImportedVenue
    {
        var notes: [String] = []
        let language = try manifestLanguage(archive)
        guard archive.files["level.geojson"] != nil else {
            throw VenueImportError(file: archive.name, message: "no level.geojson in the archive")
        }
        let site = try venueFeature(archive, language: language)
        var footprints: [[[GeoPosition]]] = []
        for f in try features("footprint.geojson", archive) {
            footprints += try f.read { (c) throws(VenueError) in try c.required("geometry").polygons(geographic: true) }
        }
        let levels = try IMDFLevels(archive, language: language, notes: &notes)
        let units = try IMDFUnits(archive, levels: levels, language: language)
        let openings = try IMDFOpenings(archive, levels: levels)
        if !units.leftOut.isEmpty {
            let kinds = units.leftOut.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
            notes.append("\(archive.label("unit.geojson")): units left out, not places to be in: "
                         + kinds.joined(separator: ", "))
        }

        var origin = given
        if origin == nil {
            let candidates: [(String, [[[GeoPosition]]])] = [
                ("the venue's geometry", site.polygons), ("the footprints", footprints),
                ("the levels", levels.all.flatMap(\.polygons)), ("the units", units.all.flatMap(\.polygons)),
            ]
            if let point = site.displayPoint {
                origin = Venue.Origin(latitude: point.y, longitude: point.x)
            } else if let (what, c) = candidates.lazy.compactMap({ w, p in PlanGeometry.centroid(p).map { (w, $0) } })
                .first
            {
                origin = Venue.Origin(latitude: PlanGeometry.tenthMicrodegrees(c.y),
                                      longitude: PlanGeometry.tenthMicrodegrees(c.x))
                notes.append("origin: the centroid of \(what) (the venue has no display_point)")
            }
        }
        guard let origin else {
            throw VenueImportError(file: archive.name, message: "no geometry to place the venue's origin on")
        }
        let plane = LocalTangentPlane(origin: origin)

        var rooms: [Venue.Room] = []
        var roomFeature: [String: String] = [:]
        for unit in units.all {
            for room in try PlanGeometry.rooms(unit.polygons, id: unit.id, name: unit.name, floor: unit.floor,
                                               plane: plane, feature: unit.feature) {
                if let earlier = roomFeature[room.id] {
                    throw unit.feature.error("id", "duplicate room id \"\(room.id)\" (first from \(earlier))")
                }
                roomFeature[room.id] = unit.feature.label
                rooms.append(room)
            }
        }
        let outline = (footprints + levels.all.flatMap(\.polygons)).flatMap { $0.flatMap { $0 } }
        let extent = PlanGeometry.bounds(outline.map { PlanGeometry.point($0, plane: plane) })
            ?? PlanGeometry.bounds(rooms.flatMap(\.polygon))
        var doors: [Venue.Opening] = []
        for o in openings.all { doors += try o.openings(plane) }
        let venue = Venue(name: venueName ?? site.name ?? defaultName(archive.name), origin: origin, anchors: [],
                          floors: levels.floors, bounds: extent, rooms: rooms, openings: doors)
        return ImportedVenue(venue: venue, notes: notes)
    }

    /// The features of one file of the archive; none when the file is absent.
    static func features(_ name: String, _ archive: IMDFArchive) throws(VenueImportError) -> [GeoJSONFeature] {
        guard let bytes = archive.files[name] else { return [] }
        return try GeoJSONFeature.collection(bytes, file: archive.label(name))
    }

    /// `manifest.json`'s `language`, when there is a manifest.
    static func manifestLanguage(_ archive: IMDFArchive) throws(VenueImportError) -> String? {
        guard let bytes = archive.files["manifest.json"] else { return nil }
        let file = archive.label("manifest.json")
        do {
            let root = JSONCursor(value: try JSONValue.parse(bytes), path: "", file: file)
            return try root.optional("language")?.string()
        } catch let error as JSONSyntaxError {
            let (line, column) = VenueLoader.position(of: error.offset ?? 0, in: bytes)
            throw VenueImportError(file: file, path: "line \(line), column \(column)", message: error.message)
        } catch let error as VenueError {
            throw VenueImportError(error, feature: nil)
        } catch {
            throw VenueImportError(file: file, message: "\(error)")
        }
    }

    /// The venue feature's name, display point and geometry (all absent without `venue.geojson`).
    static func venueFeature(_ archive: IMDFArchive, language: String?)
        throws(VenueImportError) -> (name: String?, displayPoint: GeoPosition?, polygons: [[[GeoPosition]]])
    {
        guard let f = try features("venue.geojson", archive).first else { return (nil, nil, []) }
        return try f.read { (c) throws(VenueError) in
            let properties = try c.optional("properties")
            return (try properties?.optional("name")?.label(language: language),
                    try properties?.optional("display_point")?.point(geographic: true),
                    try c.optional("geometry")?.polygons(geographic: true) ?? [])
        }
    }

    /// The archive's name without `.zip`.
    static func defaultName(_ name: String) -> String {
        name.hasSuffix(".zip") ? String(name.dropLast(4)) : name
    }
}
