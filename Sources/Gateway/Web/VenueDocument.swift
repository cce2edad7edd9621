import BeaconLocation
import BlueDotCore
import FoundationEssentials
import Positioning

/// The venue as the web page needs it (`GET /api/venue`): metric geometry, floors with plan image URLs (served
/// at `/api/venue/plan/<floor>`, never the file's path), anchors, and the geographic origin when there is one,
/// with each anchor's latitude and longitude and the origin's metres per degree, and the rooms' outlines, so the page converts a point the
/// way the server does (`GeographicOrigin`, the one projection) without a model of its own.
struct VenueDocument: Encodable {
    struct Origin: Encodable {
        var lat: Double, lon: Double, bearing: Double
        /// Metres per degree of latitude and of longitude at the origin (the tangent plane's scales).
        var metersPerDegreeLat: Double, metersPerDegreeLon: Double
    }
    struct Floor: Encodable {
        var floor: Int
        var name: String?
        var elevation: Double
        var plan: String?
        var planBounds: [[Double]]?
    }
    struct Anchor: Encodable {
        var id: String
        var x: Double, y: Double, z: Double
        var floor: Int
        var lat: Double?, lon: Double?
    }

    struct Room: Encodable {
        var id: String
        var name: String?
        var floor: Int
        var polygon: [[Double]]
        var holes: [[[Double]]]
        var exit: Bool
    }

    var name: String
    var origin: Origin?
    var bounds: [[Double]]
    var floors: [Floor]
    var anchors: [Anchor]
    var rooms: [Room]

    init(_ venue: Venue) {
        name = venue.name
        let projection = venue.origin.map(GeographicOrigin.init)
        origin = projection.map { p in
            let scale = p.metersPerDegree
            return Origin(lat: p.latitude, lon: p.longitude, bearing: p.bearingDegrees, metersPerDegreeLat: scale.north,
                          metersPerDegreeLon: scale.east)
        }
        bounds = Self.bounds(venue)
        var floors = venue.floors.map { f in
            Floor(
                floor: f.floor, name: f.name, elevation: f.elevationMeters,
                plan: f.planImage == nil ? nil : "/api/venue/plan/\(f.floor)",
                planBounds: f.planBounds.map(Self.pair))
        }
        for level in Set(venue.anchors.map(\.floor) + venue.rooms.map(\.floor)) where !floors.contains(where: { $0.floor == level }) {
            floors.append(Floor(floor: level, name: nil, elevation: 0, plan: nil, planBounds: nil))
        }
        self.floors = floors.sorted { $0.floor < $1.floor }
        anchors = venue.anchors.map { a in
            let geo = projection?.geographic(x: a.x, y: a.y)
            return Anchor(id: a.id, x: a.x, y: a.y, z: a.z, floor: a.floor, lat: geo?.latitude, lon: geo?.longitude)
        }
        let ring = { (points: [Venue.PlanPoint]) in points.map { [$0.x, $0.y] } }
        rooms = venue.rooms.map { r in
            Room(id: r.id, name: r.name, floor: r.floor, polygon: ring(r.polygon), holes: r.holes.map(ring), exit: r.exit)
        }
    }

    /// The venue's bounds, else the plans', else the anchors' box with a 2 m margin.
    static func bounds(_ venue: Venue) -> [[Double]] {
        if let b = venue.bounds { return pair(b) }
        if let b = venue.floors.compactMap(\.planBounds).first { return pair(b) }
        let xs = venue.anchors.map(\.x), ys = venue.anchors.map(\.y)
        guard let minX = xs.min(), let maxX = xs.max(), let minY = ys.min(), let maxY = ys.max() else {
            return [[0, 0], [10, 10]]
        }
        return [[minX - 2, minY - 2], [maxX + 2, maxY + 2]]
    }

    static func pair(_ b: Venue.Bounds) -> [[Double]] { [[b.minX, b.minY], [b.maxX, b.maxY]] }

    /// The document as JSON text.
    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
