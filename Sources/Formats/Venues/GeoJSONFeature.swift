import JSON
import Positioning

/// One feature of a GeoJSON FeatureCollection (RFC 7946), as the venue importers walk it: its id, its place in the
/// file, and a cursor whose paths are relative to the feature (`geometry.coordinates[0][3]`), so that an error
/// names the file, the feature and the field.
struct GeoJSONFeature {
    /// The file's name, for errors.
    let file: String
    /// Index in `features`.
    let index: Int
    /// The feature's `id` (a string, or a number written as text), when it has one.
    let id: String?
    /// The feature object; paths start at the feature.
    let cursor: JSONCursor

    /// How errors name the feature: `feature <id>`, else `features[<index>]`.
    var label: String { id.map { "feature \($0)" } ?? "features[\(index)]" }

    /// Runs `body` on the feature, placing any error of the JSON walk in this feature.
    func read<T>(_ body: (JSONCursor) throws(VenueError) -> T) throws(VenueImportError) -> T {
        do {
            return try body(cursor)
        } catch {
            throw VenueImportError(error, feature: label)
        }
    }

    /// An error about this feature at `path`.
    func error(_ path: String, _ message: String) -> VenueImportError {
        VenueImportError(file: file, feature: label, path: path, message: message)
    }

    /// The features of a FeatureCollection document.
    static func collection(_ utf8: [UInt8], file: String) throws(VenueImportError) -> [GeoJSONFeature] {
        try collection(try document(utf8, file: file), file: file)
    }

    /// A parsed JSON document, syntax errors placed at their line and column.
    static func document(_ utf8: [UInt8], file: String) throws(VenueImportError) -> JSONValue {
        do {
            return try JSONValue.parse(utf8)
        } catch {
            let (line, column) = VenueLoader.position(of: error.offset ?? 0, in: utf8)
            throw VenueImportError(file: file, path: "line \(line), column \(column)", message: error.message)
        }
    }

    /// The features of a parsed FeatureCollection document.
    static func collection(_ document: JSONValue, file: String) throws(VenueImportError) -> [GeoJSONFeature] {
        do {
            return try features(JSONCursor(value: document, path: "", file: file))
        } catch {
            throw VenueImportError(error, feature: nil)
        }
    }

    /// The features of a parsed FeatureCollection.
    private static func features(_ root: JSONCursor) throws(VenueError) -> [GeoJSONFeature] {
        let typeField = try root.required("type")
        let type = try typeField.string()
        guard type == "FeatureCollection" else {
            throw typeField.error("expected \"FeatureCollection\", got \"\(type)\"")
        }
        return try root.required("features").elements().enumerated().map { (i, c) throws(VenueError) in
            _ = try c.members()
            let at = JSONCursor(value: c.value, path: "", file: root.file)
            var id: String?
            if let idCursor = try c.optional("id") { id = try GeoJSONFeature.identifier(idCursor) }
            return GeoJSONFeature(file: root.file, index: i, id: id, cursor: at)
        }
    }

    /// An id: a non-empty string, or an integer written as text (RFC 7946 §3.2 allows both).
    static func identifier(_ c: JSONCursor) throws(VenueError) -> String {
        switch c.value {
        case .string: return try c.string(nonEmpty: true)
        case .number: return String(try c.integer())
        default: throw c.error("expected a string or a number, got \(c.value.kindName)")
        }
    }
}

/// A coordinate pair as the file gives it: longitude and latitude (degrees) or local x and y (metres).
struct GeoPosition: Hashable {
    /// Longitude, or x.
    var x: Double
    /// Latitude, or y.
    var y: Double
}

/// Reading GeoJSON geometries (RFC 7946 §3.1) and IMDF labels out of a feature.
extension JSONCursor {
    /// The largest plan coordinate a GeoJSON file in metres may give: 10,000 km.
    static let largestLocalMetres = 1e7

    /// A position `[x, y]` or `[x, y, z]` (z ignored); `geographic` checks longitude and latitude ranges, and plan
    /// metres `largestLocalMetres`.
    func position(geographic: Bool) throws(VenueError) -> GeoPosition {
        let what = geographic ? "[lon, lat]" : "[x, y]"
        guard case .array(let items) = value, items.count == 2 || items.count == 3 else {
            throw error("expected \(what)")
        }
        let pair = try elements()
        let p = GeoPosition(x: try pair[0].number(), y: try pair[1].number())
        if geographic, !(-180...180).contains(p.x) || !(-90...90).contains(p.y) {
            throw error("expected \(what) in degrees, got [\(p.x), \(p.y)]")
        }
        // Metres are kept to the millimetre (`PlanGeometry.millimetres`): a value past 10,000 km is no plan, and one
        // past about 1.8e305 would overflow to infinity there (the fuzzer's geojson target found 3.1e305).
        if !geographic, max(abs(p.x), abs(p.y)) > Self.largestLocalMetres {
            throw error("expected \(what) in metres within ±\(Int(Self.largestLocalMetres)) m, got [\(p.x), \(p.y)]")
        }
        return p
    }

    /// The polygons of a `Polygon` (one) or `MultiPolygon` geometry: each a list of rings, the first the outline.
    func polygons(geographic: Bool) throws(VenueError) -> [[[GeoPosition]]] {
        let typeField = try required("type")
        let type = try typeField.string()
        let coordinates = try required("coordinates")
        switch type {
        case "Polygon":
            return [try coordinates.rings(geographic: geographic)]
        case "MultiPolygon":
            let polygons = try coordinates.elements()
            guard !polygons.isEmpty else { throw coordinates.error("expected at least one polygon") }
            return try polygons.map { (p) throws(VenueError) in try p.rings(geographic: geographic) }
        default:
            throw typeField.error("expected \"Polygon\" or \"MultiPolygon\", got \"\(type)\"")
        }
    }

    /// The lines of a `LineString` (one) or `MultiLineString` geometry.
    func lines(geographic: Bool) throws(VenueError) -> [[GeoPosition]] {
        let typeField = try required("type")
        let type = try typeField.string()
        let coordinates = try required("coordinates")
        switch type {
        case "LineString":
            return [try coordinates.positions(geographic: geographic, atLeast: 2)]
        case "MultiLineString":
            let lines = try coordinates.elements()
            guard !lines.isEmpty else { throw coordinates.error("expected at least one line") }
            return try lines.map { (l) throws(VenueError) in try l.positions(geographic: geographic, atLeast: 2) }
        default:
            throw typeField.error("expected \"LineString\" or \"MultiLineString\", got \"\(type)\"")
        }
    }

    /// A `Point` geometry's position.
    func point(geographic: Bool) throws(VenueError) -> GeoPosition {
        let typeField = try required("type")
        let type = try typeField.string()
        guard type == "Point" else { throw typeField.error("expected \"Point\", got \"\(type)\"") }
        return try required("coordinates").position(geographic: geographic)
    }

    /// A polygon's rings: at least one, each closed or not, of at least three corners (`VenueRules`).
    private func rings(geographic: Bool) throws(VenueError) -> [[GeoPosition]] {
        let rings = try elements()
        guard !rings.isEmpty else { throw error("expected at least one ring") }
        return try rings.map { (r) throws(VenueError) in
            let ring = try r.positions(geographic: geographic, atLeast: 0)
            let corners = ring.count > 1 && ring.first == ring.last ? ring.count - 1 : ring.count
            guard corners >= VenueRules.minimumRingCorners else {
                throw r.error("expected at least \(VenueRules.minimumRingCorners) points, got \(corners)")
            }
            return ring
        }
    }

    /// An array of positions, at least `atLeast` of them.
    private func positions(geographic: Bool, atLeast: Int) throws(VenueError) -> [GeoPosition] {
        let items = try elements()
        guard items.count >= atLeast else { throw error("expected at least \(atLeast) points, got \(items.count)") }
        return try items.map { (p) throws(VenueError) in try p.position(geographic: geographic) }
    }

    /// A name: a string, or an IMDF label object (`{"en": "Lobby", "fr": "Hall"}`) read in `language` order:
    /// `en`, then `en-…`, then the archive's language, then the alphabetically first. nil when null or empty.
    func label(language: String? = nil) throws(VenueError) -> String? {
        switch value {
        case .null: return nil
        case .string(let s): return s.isEmpty ? nil : s
        case .object(let labels):
            for key in labels.keys { _ = try required(key).string() }
            let keys = labels.keys.sorted()
            let chosen = keys.first { $0 == "en" } ?? keys.first { $0.hasPrefix("en-") }
                ?? keys.first { $0 == language } ?? keys.first
            guard let chosen, case .string(let text) = labels[chosen], !text.isEmpty else { return nil }
            return text
        default:
            throw error("expected a string or a label object ({\"en\": \"...\"}), got \(value.kindName)")
        }
    }
}
