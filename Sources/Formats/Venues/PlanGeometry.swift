import Positioning

/// The geometry the importers share: positions of a file turned into venue metres (projected about the origin
/// when they are latitude/longitude, rounded to the millimetre), rooms cut from polygons, centroids and extents.
enum PlanGeometry {
    /// Venue metres are written to the millimetre: finer than any floor plan, and files stay readable.
    static func millimetres(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }

    /// Degrees of an origin the importer works out (a centroid) are kept to 1e-7 (about 1 cm).
    static func tenthMicrodegrees(_ v: Double) -> Double { (v * 1e7).rounded() / 1e7 }

    /// A position in venue metres: projected with `plane`, or taken as metres when there is none.
    static func point(_ p: GeoPosition, plane: LocalTangentPlane?) -> Venue.PlanPoint {
        let q = plane?.local(latitude: p.y, longitude: p.x) ?? Venue.PlanPoint(x: p.x, y: p.y)
        return Venue.PlanPoint(x: millimetres(q.x), y: millimetres(q.y))
    }

    /// The rooms of one feature's polygons: one room per polygon, all named alike; a single polygon keeps `id`,
    /// several are `id:1`, `id:2`, ... in the geometry's order. Each ring must keep three corners in metres.
    static func rooms(_ polygons: [[[GeoPosition]]], id: String, name: String?, floor: Int, exit: Bool = false,
                      plane: LocalTangentPlane?, feature: GeoJSONFeature) throws(VenueImportError) -> [Venue.Room] {
        var rooms: [Venue.Room] = []
        for (i, polygon) in polygons.enumerated() {
            var rings: [[Venue.PlanPoint]] = []
            for (j, ring) in polygon.enumerated() {
                let points = ring.map { point($0, plane: plane) }
                if let problem = VenueRules.ringProblem(points) {
                    let at = polygons.count > 1 ? "[\(i)][\(j)]" : "[\(j)]"
                    throw feature.error("geometry.coordinates\(at)", problem + " once in metres")
                }
                rings.append(points)
            }
            rooms.append(Venue.Room(id: polygons.count > 1 ? "\(id):\(i + 1)" : id, name: name, floor: floor,
                                    polygon: rings[0], holes: Array(rings.dropFirst()), exit: exit))
        }
        return rooms
    }

    /// The area-weighted centroid (longitude, latitude) of polygons' outlines less their holes, worked out in a
    /// plane about their first point; nil when they enclose no area.
    static func centroid(_ polygons: [[[GeoPosition]]]) -> GeoPosition? {
        guard let first = polygons.first?.first?.first else { return nil }
        let plane = LocalTangentPlane(origin: Venue.Origin(latitude: first.y, longitude: first.x))
        var area = 0.0, cx = 0.0, cy = 0.0
        var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
        for polygon in polygons {
            for (k, ring) in polygon.enumerated() {
                let points = ring.map { plane.local(latitude: $0.y, longitude: $0.x) }
                for p in points {
                    (minX, maxX, minY, maxY) = (min(minX, p.x), max(maxX, p.x), min(minY, p.y), max(maxY, p.y))
                }
                let (a, x, y) = shoelace(points)
                let sign = (k == 0) == (a >= 0) ? 1.0 : -1.0  // outline adds, holes take away, either winding
                area += sign * a
                cx += sign * a * x
                cy += sign * a * y
            }
        }
        guard abs(area) > 1e-6 else { return nil }
        var (x, y) = (cx / area, cy / area)
        // A ring that crosses itself can cancel its own area (a bow tie whose lobes balance), leaving rounding
        // noise for an area and a "centroid" anywhere, even off the globe (the geojson fuzz target found one):
        // outside the points' bounding box, the middle of the box stands in.
        if !(x >= minX && x <= maxX && y >= minY && y <= maxY) {
            (x, y) = ((minX + maxX) / 2, (minY + maxY) / 2)
        }
        let (lat, lon) = plane.geographic(x: x, y: y)
        return GeoPosition(x: lon, y: lat)
    }

    /// Signed area and centroid of a ring (shoelace formula; closing point optional).
    static func shoelace(_ ring: [Venue.PlanPoint]) -> (area: Double, x: Double, y: Double) {
        guard ring.count >= 3 else { return (0, 0, 0) }
        var a = 0.0, x = 0.0, y = 0.0
        for i in ring.indices {
            let p = ring[i], q = ring[(i + 1) % ring.count]
            let cross = p.x * q.y - q.x * p.y  // twice the signed area of the triangle (0, p, q)
            a += cross
            x += (p.x + q.x) * cross
            y += (p.y + q.y) * cross
        }
        guard a != 0 else { return (0, 0, 0) }
        return (a / 2, x / (3 * a), y / (3 * a))
    }

    /// The rectangle around `points`, nil when there are none.
    static func bounds(_ points: some Sequence<Venue.PlanPoint>) -> Venue.Bounds? {
        var box: Venue.Bounds?
        for p in points {
            box = union(box, Venue.Bounds(minX: p.x, minY: p.y, maxX: p.x, maxY: p.y))
        }
        return box
    }

    /// The rectangle around two (either may be absent).
    static func union(_ a: Venue.Bounds?, _ b: Venue.Bounds?) -> Venue.Bounds? {
        guard let a else { return b }
        guard let b else { return a }
        return Venue.Bounds(minX: min(a.minX, b.minX), minY: min(a.minY, b.minY), maxX: max(a.maxX, b.maxX),
                            maxY: max(a.maxY, b.maxY))
    }
}
