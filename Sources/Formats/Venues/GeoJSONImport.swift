import BlueDotCore
import FoundationEssentials
import JSON
import Positioning
import SystemIO

/// Turns a GeoJSON FeatureCollection of room outlines (RFC 7946) into a venue's rooms and floors
/// (`docs/formats.md`, "Importing IMDF and GeoJSON").
///
/// Each `Polygon` or `MultiPolygon` feature is a room (a `MultiPolygon` one room per polygon, `<id>:1`, `<id>:2`,
/// ..., as in `IMDFImport`; holes kept); features of other geometry types are counted and left out. Per feature:
/// - id: the feature's `id`, else `properties.id` (a string or an integer), else `feature-<index>`;
/// - name: `properties.name`, a string or an IMDF label object (`{"en": ...}`);
/// - floor: the first of `properties.level`, `level_id`, `floor`, `ordinal` that is present, an integer or a
///   string holding one (`"2"`, `"-1"`); without any, `defaultFloor`;
/// - exit: `properties.exit`, `true` or `false` (absent: false), the venue's room `exit`.
/// Coordinates are WGS84 longitude/latitude, as RFC 7946 has them (`.wgs84`), projected about the origin: the
/// given one, else the area centroid of all the rooms, to 1e-7 degrees. `.local` takes them as venue metres. The
/// coordinates' range is no guide (a 20 m plan in metres is also a valid place near 0° N 0° E), so `.local` must
/// be asked for; a legacy `crs` member naming anything but WGS84 (CRS84, EPSG:4326) is refused under `.wgs84`, and
/// a position outside ±180/±90 says to ask for `.local`. The floors are the floors the rooms are on, unnamed; the
/// bounds enclose the rooms.
public enum GeoJSONImport {
    /// What the coordinates are.
    public enum CoordinateSystem: String, Sendable, Hashable, CaseIterable {
        /// Longitude and latitude, degrees (RFC 7946).
        case wgs84
        /// Venue metres, x east and y north of the venue's (0, 0).
        case local
    }

    /// The properties read as a room's floor, in this order of precedence.
    public static let levelKeys = ["level", "level_id", "floor", "ordinal"]

    /// Reads and converts the file at `path`; see `convert`.
    public static func load(path: String, venueName: String? = nil, coordinates: CoordinateSystem = .wgs84,
                            defaultFloor: Int = 0, origin: Venue.Origin? = nil) throws(VenueImportError)
        -> ImportedVenue
    {
        let file = URL(fileURLWithPath: path).lastPathComponent
        let data: [UInt8]
        do { data = try WholeFile.read(path) } catch { throw VenueImportError(file: file, message: "\(error)") }
        return try convert(data, file: file, venueName: venueName, coordinates: coordinates,
                           defaultFloor: defaultFloor, origin: origin)
    }

    /// Converts GeoJSON text; `file` names it in errors and, without `venueName`, names the venue. `origin` (that
    /// of a venue the result will be merged into) replaces the centroid; with `.local` coordinates it is only
    /// carried over.
    public static func convert(_ utf8: [UInt8], file: String, venueName: String? = nil,
                               coordinates: CoordinateSystem = .wgs84, defaultFloor: Int = 0,
                               origin given: Venue.Origin? = nil) throws(VenueImportError) -> ImportedVenue
    {
        let geographic = coordinates == .wgs84
        let document = try GeoJSONFeature.document(utf8, file: file)
        let features = try GeoJSONFeature.collection(document, file: file)
        if geographic { try checkCRS(document, file: file) }
        var found: [(feature: GeoJSONFeature, id: String, name: String?, floor: Int, exit: Bool,
                     polygons: [[[GeoPosition]]])] = []
        var leftOut: [String: Int] = [:]
        var roomFeature: [String: String] = [:]
        for f in features {
            let read = try f.read { (c) throws(VenueError) -> (String?, String?, Int?, Bool, [[[GeoPosition]]])? in
                guard let geometry = try c.optional("geometry") else {
                    leftOut["without geometry", default: 0] += 1
                    return nil
                }
                let type = try geometry.required("type").string()
                guard type == "Polygon" || type == "MultiPolygon" else {
                    leftOut[type, default: 0] += 1
                    return nil
                }
                let properties = try c.optional("properties")
                var id: String?
                if let p = try properties?.optional("id") { id = try GeoJSONFeature.identifier(p) }
                let polygons: [[[GeoPosition]]]
                do throws(VenueError) {
                    polygons = try geometry.polygons(geographic: geographic)
                } catch {
                    guard error.message.hasPrefix("expected [lon, lat] in degrees") else { throw error }
                    throw VenueError(file: error.file, path: error.path,
                                     message: error.message + " (for coordinates in metres: --crs local)")
                }
                return (id, try properties?.optional("name")?.label(), try level(properties),
                        try properties?.optional("exit")?.bool() ?? false, polygons)
            }
            guard let (propertyID, name, floor, exit, polygons) = read else { continue }
            let id = f.id ?? propertyID ?? "feature-\(f.index)"
            found.append((f, id, name, floor ?? defaultFloor, exit, polygons))
        }
        guard !found.isEmpty else {
            throw VenueImportError(file: file, path: "features", message: "no Polygon or MultiPolygon feature")
        }
        var origin = given
        if geographic, origin == nil, let c = PlanGeometry.centroid(found.flatMap(\.polygons)) {
            origin = Venue.Origin(latitude: PlanGeometry.tenthMicrodegrees(c.y),
                                  longitude: PlanGeometry.tenthMicrodegrees(c.x))
        }
        if geographic, origin == nil {
            throw VenueImportError(file: file, path: "features", message: "the rooms enclose no area to centre on")
        }
        let plane = geographic ? origin.map(LocalTangentPlane.init) : nil
        var rooms: [Venue.Room] = []
        for room in found {
            for r in try PlanGeometry.rooms(room.polygons, id: room.id, name: room.name, floor: room.floor,
                                            exit: room.exit, plane: plane, feature: room.feature) {
                if let earlier = roomFeature[r.id] {
                    throw room.feature.error("id", "duplicate room id \"\(r.id)\" (first from \(earlier))")
                }
                roomFeature[r.id] = room.feature.label
                rooms.append(r)
            }
        }
        var notes: [String] = []
        if !leftOut.isEmpty {
            let kinds = leftOut.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
            notes.append("\(file): features that are not polygons left out: " + kinds.joined(separator: ", "))
        }
        let floors = Set(rooms.map(\.floor)).sorted().map { Venue.Floor(floor: $0) }
        let venue = Venue(name: venueName ?? defaultName(file), origin: origin, anchors: [], floors: floors,
                          bounds: PlanGeometry.bounds(rooms.flatMap(\.polygon)), rooms: rooms)
        return ImportedVenue(venue: venue, notes: notes)
    }

    /// The room's floor: the first level property present, an integer or a string holding one.
    static func level(_ properties: JSONCursor?) throws(VenueError) -> Int? {
        guard let properties else { return nil }
        for key in levelKeys {
            guard let c = try properties.optional(key) else { continue }
            if case .string(let text) = c.value {
                // The bound of a number level too: a venue file could not hold a larger floor (the geojson fuzz
                // target wrote one, "0…06148914691236517201", and the venue did not load back).
                guard let n = Int(text.trimmingBlanks()),
                      Double(n.magnitude) < JSONCursor.integerMagnitudeLimit else {
                    throw c.error("expected an integer level, got \"\(text)\"")
                }
                return n
            }
            return try c.integer()
        }
        return nil
    }

    /// Refuses a legacy `crs` member (GeoJSON 2008) that names a system other than WGS84 longitude/latitude.
    static func checkCRS(_ document: JSONValue, file: String) throws(VenueImportError) {
        guard case .object(let root) = document, case .object(let crs)? = root["crs"],
              case .object(let properties)? = crs["properties"], case .string(let name)? = properties["name"]
        else { return }
        let wgs84 = ["urn:ogc:def:crs:OGC:1.3:CRS84", "urn:ogc:def:crs:OGC::CRS84", "urn:ogc:def:crs:EPSG::4326",
                     "EPSG:4326"]
        guard wgs84.contains(name) else {
            throw VenueImportError(file: file, path: "crs.properties.name",
                                   message: "coordinates in \"\(name)\" are not longitude/latitude; "
                                       + "reproject to WGS84, or give --crs local for venue metres")
        }
    }

    /// The file name without `.geojson` or `.json`.
    static func defaultName(_ file: String) -> String {
        for suffix in [".geojson", ".json"] where file.hasSuffix(suffix) { return String(file.dropLast(suffix.count)) }
        return file
    }
}
