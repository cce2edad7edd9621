import Formats
import Foundation
import Testing
@testable import Positioning

/// `bluedot venue import --imdf`: a real IMDF archive (an excerpt of the Vegalsa Eroski shopping centre in
/// A Coruña, from OpenIndoorMaps; see Fixtures/imdf-vegalsa-excerpt-ATTRIBUTION.md) as a folder and as a zip.
@Suite struct IMDFImportTests {
    static let folder = "imdf-vegalsa-excerpt"
    static let zipFile = "imdf-vegalsa-excerpt.zip"
    /// The venue feature's display point, which becomes the origin.
    static let displayPoint = Venue.Origin(latitude: 43.3521668731299, longitude: -8.42497486024993)

    @Test func importsTheExcerptFolder() throws {
        let imported = try IMDFImport.load(path: Fixtures.path(Self.folder))
        let v = imported.venue
        #expect(v.name == "Vegalsa Eroski")
        #expect(v.origin == Self.displayPoint)
        #expect(v.anchors.isEmpty)
        // Four levels, ordinals -1 to 2, named by their `name` labels (the file lists ordinals 0, 2, 1, -1).
        #expect(v.floors == [Venue.Floor(floor: -1, name: "Level_4"), Venue.Floor(floor: 0, name: "Level_1"),
                             Venue.Floor(floor: 1, name: "Level_3"), Venue.Floor(floor: 2, name: "Level_2")])
        // Eleven units: the structure and the void over the atrium are left out, nine rooms remain.
        #expect(v.rooms.count == 9)
        #expect(v.rooms.map(\.floor) == [0, 0, 0, 0, 1, 1, 2, 2, -1])
        #expect(v.rooms.first?.id == "a5e10e43-3e96-4dfd-96be-55f82362e5ed")
        #expect(v.rooms.allSatisfy { $0.name == nil })  // the archive names no unit
        #expect(imported.notes.contains { $0.contains("units left out, not places to be in: 1 opentobelow, 1 structure") })
        // Areas in m² as a floor plan has them: shops of 140 to 380 m², an escalator of 12 m², the lower level's
        // corridor of 15,900 m² once its twelve holes (the shops' walls) are cut out. Tolerance 1%.
        let areas = v.rooms.map(Self.area)
        let expected: [Double] = [372.9, 143.4, 362.5, 11.9, 299.7, 143.4, 184.3, 744.0, 15_929.5]
        for (a, e) in zip(areas, expected) { #expect(abs(a - e) <= 0.01 * e, "area \(a) m², expected \(e)") }
        let corridor = try #require(v.rooms.last)
        #expect(corridor.holes.count == 12)
        #expect(corridor.id == "9a63ce90-32ab-4adf-97be-76ee168daff6")
        // Openings: four door segments, 1.5 to 4.6 m wide, on the floors of their levels.
        #expect(v.openings.map(\.floor) == [0, 0, 1, -1])
        #expect(v.openings.allSatisfy { $0.category == "pedestrian" && $0.line.count == 2 })
        let widths = v.openings.map { hypot($0.line[1].x - $0.line[0].x, $0.line[1].y - $0.line[0].y) }
        for (w, e) in zip(widths, [2.63, 4.57, 1.51, 1.51]) { #expect(abs(w - e) < 0.01, "door \(w) m") }
        // Bounds: the footprint and the levels, about 213 m east-west and 172 m north-south around the origin.
        let b = try #require(v.bounds)
        #expect(b == Venue.Bounds(minX: -104.499, minY: -93.887, maxX: 108.255, maxY: 77.773))
        // Every room's points lie inside the bounds (the units are inside the building).
        #expect(v.rooms.allSatisfy { $0.polygon.allSatisfy { b.minX <= $0.x && $0.x <= b.maxX && b.minY <= $0.y && $0.y <= b.maxY } })
    }

    @Test func zipAndFolderGiveTheSameVenue() throws {
        let fromFolder = try IMDFImport.load(path: Fixtures.path(Self.folder))
        let fromZip = try IMDFImport.load(path: Fixtures.path(Self.zipFile))
        #expect(fromZip.venue == fromFolder.venue)
        // The zip holds a zipped folder; errors and notes name the entry inside it.
        #expect(fromZip.notes.first?.hasPrefix("imdf-vegalsa-excerpt.zip/imdf-vegalsa-excerpt/unit.geojson: ") == true)
    }

    /// The projection is `GeographicOrigin`'s (BlueDotCore), pinned to the numbers it gives, and every room
    /// point projects back to the latitude/longitude of the file within the millimetre the import rounds to.
    @Test func projectionRoundTripsToTheFilesCoordinates() throws {
        let plane = LocalTangentPlane(origin: Self.displayPoint)
        // GeographicOrigin(latitude: 43.3521668731299, longitude: -8.42497486024993).local(latitude: 43.3530788,
        // longitude: -8.4260414) and .geographic(x: 100, y: -50), printed to 1e-12.
        let p = plane.local(latitude: 43.3530788, longitude: -8.4260414)
        #expect(abs(p.x - -86.468359680931) < 1e-9 && abs(p.y - 101.314711096171) < 1e-9)
        let g = plane.geographic(x: 100, y: -50)
        #expect(abs(g.latitude - 43.351716826508) < 1e-12 && abs(g.longitude - -8.423741415145) < 1e-12)
        let turned = LocalTangentPlane(origin: Venue.Origin(latitude: 56.45992, longitude: -2.977999,
                                                            bearingDegrees: 30))
        let q = turned.local(latitude: 56.4602, longitude: -2.9785)
        #expect(abs(q.x - -42.3375550015) < 1e-9 && abs(q.y - 11.557706716037) < 1e-9)
        // Independent check of the scale: the usual series for WGS84 (metres per degree of latitude
        // 111132.92 − 559.82 cos 2φ + ..., of longitude 111412.84 cos φ − 93.5 cos 3φ + ...) agrees within 0.1 m.
        let scale = plane.metersPerDegree
        #expect(abs(scale.north - 111_099.570) < 0.1 && abs(scale.east - 81_073.704) < 0.1)

        let v = try IMDFImport.load(path: Fixtures.path(Self.folder)).venue
        let source = try Self.unitCoordinates()
        #expect(source.count == 11)
        var checked = 0
        for room in v.rooms {
            let rings = try #require(source[room.id])
            for (ring, points) in zip(rings, [room.polygon] + room.holes) {
                #expect(ring.count == points.count)
                for (lonLat, point) in zip(ring, points) {
                    let back = plane.geographic(x: point.x, y: point.y)
                    // 1 mm is 9e-9 degrees of latitude, 1.2e-8 of longitude here.
                    #expect(abs(back.latitude - lonLat[1]) < 1e-8 && abs(back.longitude - lonLat[0]) < 1.5e-8)
                    checked += 1
                }
            }
        }
        #expect(checked > 150)
    }

    @Test func roundTripsThroughTheVenueFile() throws {
        let venue = try IMDFImport.load(path: Fixtures.path(Self.zipFile)).venue
        let text = VenueWriter.json(venue)
        let back = try VenueLoader.parse(Array(text.utf8), file: "mall.venue.json")
        #expect(back == venue)
        #expect(VenueWriter.json(back) == text)
    }

    /// `--venue EXISTING.json`: the archive's rooms and openings over a venue whose anchors are placed.
    @Test func mergesIntoAnExistingVenue() throws {
        let anchor = Anchor(id: "rx-1", x: 1, y: 2, z: 2.5, floor: 0)
        let kiosk = Venue.Room(id: "kiosk", name: "Kiosk", floor: 0, polygon: [
            Venue.PlanPoint(x: 0, y: 0), Venue.PlanPoint(x: 2, y: 0), Venue.PlanPoint(x: 2, y: 2),
        ])
        let existing = Venue(name: "Mall", origin: Self.displayPoint, anchors: [anchor],
                             floors: [Venue.Floor(floor: 0, name: "Ground")],
                             bounds: Venue.Bounds(minX: -500, minY: 0, maxX: 0, maxY: 10), rooms: [kiosk])
        let imported = try IMDFImport.load(path: Fixtures.path(Self.folder), origin: existing.origin)
        let merged = imported.merged(into: existing)
        let v = merged.venue
        #expect(v.name == "Mall" && v.anchors == [anchor] && v.origin == existing.origin)
        #expect(v.floors.map(\.floor) == [0, -1, 1, 2])
        #expect(v.floors[0].name == "Ground")  // the existing floor keeps its name
        #expect(v.rooms.count == 10 && v.rooms[0] == kiosk)
        #expect(v.openings.count == 4)
        #expect(v.bounds == Venue.Bounds(minX: -500, minY: -93.887, maxX: 108.255, maxY: 77.773))
        #expect(merged.notes.last == "merged into Mall: 9 rooms added, 0 replaced; 4 openings added, 0 replaced; 3 floors added")
        // A second import of the same archive replaces its rooms instead of repeating them.
        let again = imported.merged(into: v)
        #expect(again.venue.rooms.count == 10)
        #expect(again.notes.last == "merged into Mall: 0 rooms added, 9 replaced; 0 openings added, 4 replaced; 0 floors added")
        #expect(try VenueLoader.parse(Array(VenueWriter.json(v).utf8), file: "m.venue.json") == v)
    }

    /// The area of a room in m²: its outline's less its holes' (shoelace formula).
    static func area(_ room: Venue.Room) -> Double {
        func ring(_ p: [Venue.PlanPoint]) -> Double {
            abs(p.indices.reduce(0.0) { s, i in
                let q = p[(i + 1) % p.count]
                return s + p[i].x * q.y - q.x * p[i].y
            }) / 2
        }
        return ring(room.polygon) - room.holes.map(ring).reduce(0, +)
    }

    /// Each unit's rings as `[lon, lat]` pairs, read with Foundation's own JSON parser.
    static func unitCoordinates() throws -> [String: [[[Double]]]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("\(folder)/unit.geojson")))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var result: [String: [[[Double]]]] = [:]
        for feature in try #require(root["features"] as? [[String: Any]]) {
            let geometry = try #require(feature["geometry"] as? [String: Any])
            result[try #require(feature["id"] as? String)] = try #require(geometry["coordinates"] as? [[[Double]]])
        }
        return result
    }
}
