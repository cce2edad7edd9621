import Formats
import Foundation
import Testing
@testable import Positioning

/// `bluedot venue import --geojson`: real floor plans (an excerpt of WRLD's Westport House, second floor, and of
/// OpenIndoorMaps' demo map; see Fixtures/geojson-*-ATTRIBUTION.md) and small made-up ones for the rules.
@Suite struct GeoJSONImportTests {
    static let westport = "geojson-westport-house-floor-2-excerpt.geojson"
    static let demo = "geojson-openindoormaps-demo-excerpt.geojson"

    /// The import error's description for `text`, or nil.
    func failure(_ text: String, coordinates: GeoJSONImport.CoordinateSystem = .wgs84) -> String? {
        do {
            _ = try GeoJSONImport.convert(Array(text.utf8), file: "plan.geojson", coordinates: coordinates)
            return nil
        } catch {
            return error.description
        }
    }

    /// WRLD's per-level files carry no level property: the floor is given (`--floor 2`).
    @Test func importsWestportHouseSecondFloor() throws {
        let imported = try GeoJSONImport.load(path: Fixtures.path(Self.westport), defaultFloor: 2)
        let v = imported.venue
        #expect(v.name == "geojson-westport-house-floor-2-excerpt")
        #expect(v.floors == [Venue.Floor(floor: 2)])
        #expect(v.anchors.isEmpty && v.openings.isEmpty && imported.notes.isEmpty)
        // Ids from `properties.id` (numbers), names from `properties.name`.
        #expect(v.rooms.map(\.id) == ["304", "306", "307", "316", "317", "318", "319"])
        #expect(v.rooms.map(\.name) == ["Unit 4", "Bathroom", nil, "Meeting Room Large", "Server room", "Kitchen",
                                        "Meeting Room Small"])
        #expect(v.rooms.allSatisfy { $0.floor == 2 })
        // Office rooms of plausible sizes (m², 2%): a bathroom of 5, a kitchen of 12, meeting rooms of 10 and 25,
        // an office unit of 374.
        let areas = v.rooms.map(IMDFImportTests.area)
        for (a, e) in zip(areas, [374.0, 5.4, 17.9, 24.9, 17.6, 12.2, 9.5]) {
            #expect(abs(a - e) <= 0.02 * e, "area \(a) m², expected \(e)")
        }
        // The origin is the area centroid of the rooms, in Dundee, to 1e-7 degrees; the rooms lie around it.
        let origin = try #require(v.origin)
        #expect(abs(origin.latitude - 56.46008) < 2e-4 && abs(origin.longitude - -2.97822) < 3e-4)
        #expect(origin.latitude == (origin.latitude * 1e7).rounded() / 1e7 && origin.bearingDegrees == 0)
        let b = try #require(v.bounds)
        #expect(b.minX < 0 && b.maxX > 0 && b.minY < 0 && b.maxY > 0 && b.maxX - b.minX < 80 && b.maxY - b.minY < 80)
        #expect(try VenueLoader.parse(Array(VenueWriter.json(v).utf8), file: "w.venue.json") == v)
    }

    /// OpenIndoorMaps' demo: floors from `level_id`, no ids or names, points and lines left out and counted.
    @Test func importsTheOpenIndoorMapsDemo() throws {
        let imported = try GeoJSONImport.load(path: Fixtures.path(Self.demo))
        let v = imported.venue
        #expect(v.floors.map(\.floor) == [0, 1, 2])
        #expect(v.rooms.map(\.id) == ["feature-0", "feature-3", "feature-4", "feature-5", "feature-7", "feature-8"])
        #expect(v.rooms.map(\.floor) == [0, 0, 1, 2, 0, 0])
        // The file's names are null, or the string "null" (kept as the file has it).
        #expect(v.rooms.map(\.name) == ["null", nil, nil, nil, nil, nil])
        #expect(imported.notes == [
            "geojson-openindoormaps-demo-excerpt.geojson: features that are not polygons left out: 2 MultiLineString, 3 Point",
        ])
        // Areas in m² (1%): small rooms of 5 m² (the same outline on each level), 14 and 15, one of 82.
        for (a, e) in zip(v.rooms.map(IMDFImportTests.area), [14.08, 4.98, 4.98, 4.98, 14.7, 82.06]) {
            #expect(abs(a - e) <= 0.01 * e, "area \(a) m², expected \(e)")
        }
        let origin = try #require(v.origin)
        #expect(abs(origin.latitude - 45.758) < 0.01 && abs(origin.longitude - 3.111) < 0.01)
    }

    @Test func localMetresAndLevelProperties() throws {
        let plan = """
            {"type": "FeatureCollection", "features": [
             {"type": "Feature", "id": "hall", "properties": {"name": "Hall", "floor": "1"},
              "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 4], [0, 4], [0, 0]], [[1, 1], [2, 1], [2, 2], [1, 1]]]}},
             {"type": "Feature", "properties": {"id": 7, "name": {"en": "Kitchen"}, "ordinal": -1, "level": 3},
              "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [3, 0], [3, 3.5]]]}},
             {"type": "Feature", "properties": {"name": "Yard", "exit": true}, "geometry": {"type": "Polygon", "coordinates": [[[20, 0], [30, 0], [30, 5]]]}},
             {"type": "Feature", "properties": {}, "geometry": null}
            ]}
            """
        let imported = try GeoJSONImport.convert(Array(plan.utf8), file: "home.geojson", coordinates: .local,
                                                 defaultFloor: 5)
        let v = imported.venue
        #expect(v.origin == nil)
        #expect(v.rooms == [
            Venue.Room(id: "hall", name: "Hall", floor: 1, polygon: [
                .init(x: 0, y: 0), .init(x: 10, y: 0), .init(x: 10, y: 4), .init(x: 0, y: 4), .init(x: 0, y: 0),
            ], holes: [[.init(x: 1, y: 1), .init(x: 2, y: 1), .init(x: 2, y: 2), .init(x: 1, y: 1)]]),
            // `level` is read before `ordinal`.
            Venue.Room(id: "7", name: "Kitchen", floor: 3, polygon: [.init(x: 0, y: 0), .init(x: 3, y: 0), .init(x: 3, y: 3.5)]),
            // `properties.exit` says the yard is a way out.
            Venue.Room(id: "feature-2", name: "Yard", floor: 5, polygon: [.init(x: 20, y: 0), .init(x: 30, y: 0), .init(x: 30, y: 5)],
                       exit: true),
        ])
        #expect(failure(#"{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {"exit": "yes"}, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1]]]}}]}"#,
                        coordinates: .local) == "plan.geojson: features[0]: properties.exit: expected true or false, got a string")
        #expect(v.floors.map(\.floor) == [1, 3, 5])
        #expect(v.bounds == Venue.Bounds(minX: 0, minY: 0, maxX: 30, maxY: 5))
        #expect(imported.notes == ["home.geojson: features that are not polygons left out: 1 without geometry"])
        // Merged into a venue in the same metres, without an origin.
        let existing = Venue(name: "Home", anchors: [Anchor(id: "a", x: 1, y: 1)], floors: [Venue.Floor(floor: 1)])
        let merged = imported.merged(into: existing).venue
        #expect(merged.floors.map(\.floor) == [1, 3, 5] && merged.rooms.count == 3 && merged.origin == nil)
        // Into a venue that lists no floors: the floors its anchors stand on are listed too, so that it loads.
        let floorless = Venue(name: "Flat", anchors: [Anchor(id: "a", x: 1, y: 1, floor: 0)])
        let both = imported.merged(into: floorless).venue
        #expect(both.floors.map(\.floor) == [0, 1, 3, 5])
        #expect(try VenueLoader.parse(Array(VenueWriter.json(both).utf8), file: "f.venue.json") == both)
    }

    /// A ring that crosses itself so that its lobes cancel (here exactly, in degrees) has rounding noise for an
    /// area once projected: its "centroid" fell off the globe and the written venue did not load (found by the
    /// geojson fuzz target). The origin now stays within the rings' extent and the venue round-trips.
    @Test func aSelfCancellingRingKeepsTheOriginOnTheMap() throws {
        let plan = """
            {"type": "FeatureCollection", "features": [{"type": "Feature", "id": "bow-tie", "properties": {},
             "geometry": {"type": "MultiPolygon", "coordinates": [[[[5, 3], [9, 2], [2, 3.5], [2, 4], [1, 3.5]]]]}}]}
            """
        let venue = try GeoJSONImport.convert(Array(plan.utf8), file: "plan.geojson", coordinates: .wgs84).venue
        let origin = try #require(venue.origin)
        #expect((2...4).contains(origin.latitude) && (1...9).contains(origin.longitude), "\(origin)")
        #expect(try VenueLoader.parse(Array(VenueWriter.json(venue).utf8), file: "plan.venue.json") == venue)
        // A level given as text is bounded as a number level is: no floor a venue file cannot hold.
        let huge = plan.replacingOccurrences(of: "\"properties\": {}",
                                             with: "\"properties\": {\"level\": \"06148914691236517201\"}")
        #expect(failure(huge) == "plan.geojson: feature bow-tie: properties.level: "
                + "expected an integer level, got \"06148914691236517201\"")
    }

    @Test func errorsNameFileFeatureAndField() {
        func one(_ feature: String) -> String { #"{"type": "FeatureCollection", "features": [\#(feature)]}"# }
        let square = #""geometry": {"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 4], [0, 4]]]}"#
        #expect(failure(one(#"{"type": "Feature", "id": "k", "properties": {"level": "1;2"}, \#(square)}"#))
            == "plan.geojson: feature k: properties.level: expected an integer level, got \"1;2\"")
        #expect(failure(one(#"{"type": "Feature", "id": "k", "properties": {"floor": true}, \#(square)}"#))
            == "plan.geojson: feature k: properties.floor: expected an integer, got a boolean")
        #expect(failure(one(#"{"type": "Feature", "id": "k", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 400], [0, 4]]]}}"#))
            == "plan.geojson: feature k: geometry.coordinates[0][2]: expected [lon, lat] in degrees, got [10.0, 400.0] (for coordinates in metres: --crs local)")
        #expect(failure(one(#"{"type": "Feature", "properties": {}, "geometry": {"type": "MultiPolygon", "coordinates": [[[[0, 0], [1, 0], [1, 1]]], [[[0, 0], "x", [1, 1]]]]}}"#))
            == "plan.geojson: features[0]: geometry.coordinates[1][0][1]: expected [lon, lat]")
        #expect(failure(one(#"{"type": "Feature", "id": {"a": 1}, "properties": {}, \#(square)}"#))
            == "plan.geojson: features[0].id: expected a string or a number, got an object")
        let twice = #"{"type": "Feature", "properties": {"id": "r"}, \#(square)}"#
        #expect(failure(#"{"type": "FeatureCollection", "features": [\#(twice), \#(twice)]}"#)
            == "plan.geojson: features[1]: id: duplicate room id \"r\" (first from features[0])")
        // Degrees too close for three corners once in millimetres.
        let tiny = #"{"type": "Feature", "id": "tiny", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [0.000000001, 0], [0, 0.000000001]]]}}"#
        #expect(failure(#"{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {}, \#(square)}, \#(tiny)]}"#)
            == "plan.geojson: feature tiny: geometry.coordinates[0]: expected at least 3 points, got 2 once in metres")
        #expect(failure(#"{"type": "FeatureCollection", "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::3857"}}, "features": [{"type": "Feature", "properties": {}, \#(square)}]}"#)
            == "plan.geojson: crs.properties.name: coordinates in \"urn:ogc:def:crs:EPSG::3857\" are not longitude/latitude; reproject to WGS84, or give --crs local for venue metres")
        #expect(failure(#"{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [0, 0]}}]}"#)
            == "plan.geojson: features: no Polygon or MultiPolygon feature")
        #expect(failure(#"{"type": "FeatureCollection", "features": 3}"#)
            == "plan.geojson: features: expected an array, got a number")
        #expect(failure("[1, 2") == "plan.geojson: line 1, column 6: unterminated array")
        // The same file is fine in metres.
        #expect(failure(one(#"{"type": "Feature", "id": "k", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 400], [0, 4]]]}}"#), coordinates: .local) == nil)
    }
}
