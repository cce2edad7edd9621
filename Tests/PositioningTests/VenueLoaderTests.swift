import Formats
import Foundation
import Testing
@testable import Positioning

@Suite struct VenueLoaderTests {
    /// The error message for venue JSON `text`, or nil if it loads.
    func failure(_ text: String) -> String? {
        do {
            _ = try VenueLoader.parse(Array(text.utf8), file: "site.venue.json", baseDirectory: "/venues/site")
            return nil
        } catch {
            return error.description
        }
    }

    /// A venue whose anchors list is `anchors` and whose other members are `extra`.
    func venue(_ anchors: String, _ extra: String = "") -> String {
        "{\"name\": \"Site\", \"anchors\": [\(anchors)]\(extra.isEmpty ? "" : ", " + extra)}"
    }

    static let a0 = "{\"id\": \"rx-0\", \"x\": 0, \"y\": 0}"
    static let a1 = "{\"id\": \"rx-1\", \"x\": 5, \"y\": 0}"

    @Test func loadsTheThreeRealVenues() throws {
        let boun = try VenueLoader.load(path: Fixtures.path("boun-tetam.venue.json"))
        #expect(boun.anchors.count == 12)
        #expect(boun.anchors[8] == Anchor(id: "b827eb4521b4", x: 7.0, y: 7.09, z: 1.22, floor: 0))
        #expect(boun.bounds == Venue.Bounds(minX: 0, minY: 0, maxX: 20.66, maxY: 17.641))
        #expect(boun.model == .uncalibrated)
        #expect(boun.floors == [Venue.Floor(floor: 0, name: "Ground floor", elevationMeters: 0)])
        let wut = try VenueLoader.load(path: Fixtures.path("wut-flat.venue.json"))
        #expect(wut.anchors.map(\.id) == ["a1", "a2", "a3", "a4", "a5", "a6"])
        #expect(wut.anchors[3].z == 1.85)
        let uji = try VenueLoader.load(path: Fixtures.path("uji-geo.venue.json"))
        #expect(uji.anchors.count == 22)
        #expect(uji.bounds == Venue.Bounds(minX: 0.1, minY: 0.1, maxX: 16.493, maxY: 10.668))
    }

    @Test func goldenErrorMessages() {
        let cases: [(String, String)] = [
            (venue(Self.a0 + ", {\"id\": \"rx-1\", \"x\": \"5\", \"y\": 0}"),
             "site.venue.json: anchors[1].x: expected a number, got a string"),
            (venue("{\"id\": \"rx-1\", \"y\": 0}"), "site.venue.json: anchors[0].x: missing"),
            (venue("{\"id\": \"rx-1\", \"x\": 1}"), "site.venue.json: anchors[0].y: missing"),
            (venue("{\"x\": 1, \"y\": 2}"), "site.venue.json: anchors[0].id: missing"),
            (venue("{\"id\": \"\", \"x\": 1, \"y\": 2}"), "site.venue.json: anchors[0].id: expected a non-empty string"),
            (venue(Self.a0 + ", " + Self.a1 + ", " + Self.a0),
             "site.venue.json: anchors[2].id: duplicate anchor id \"rx-0\" (first at anchors[0])"),
            (venue("{\"id\": \"rx-0\", \"x\": NaN, \"y\": 0}"),
             "site.venue.json: anchors[0].x: expected a finite number, got nan"),
            (venue("{\"id\": \"rx-0\", \"x\": 1e999, \"y\": 0}"),
             "site.venue.json: anchors[0].x: expected a finite number, got inf"),
            (venue("{\"id\": \"rx-0\", \"x\": 0, \"y\": 0, \"floor\": 1.5}"),
             "site.venue.json: anchors[0].floor: expected an integer, got 1.5"),
            (venue(Self.a0, "\"bounds\": [[10, 0], [5, 8]]"),
             "site.venue.json: bounds: min x 10.0 is greater than max x 5.0"),
            (venue(Self.a0, "\"bounds\": [[0, 9], [5, 8]]"),
             "site.venue.json: bounds: min y 9.0 is greater than max y 8.0"),
            (venue(Self.a0, "\"bounds\": [[0, 0]]"), "site.venue.json: bounds: expected [[minX, minY], [maxX, maxY]]"),
            (venue(Self.a0, "\"model\": {\"pathLossExponent\": 0}"),
             "site.venue.json: model.pathLossExponent: expected a number greater than 0, got 0.0"),
            (venue("{\"id\": \"rx-0\", \"x\": 0, \"y\": 0, \"pathLossExponent\": -2}"),
             "site.venue.json: anchors[0].pathLossExponent: expected a number greater than 0, got -2.0"),
            (venue(Self.a0, "\"model\": {\"shadowingSigma\": 0}"),
             "site.venue.json: model.shadowingSigma: expected a number greater than 0, got 0.0"),
            (venue(Self.a0, "\"model\": {\"measuredPower\": true}"),
             "site.venue.json: model.measuredPower: expected a number, got a boolean"),
            (venue("{\"id\": \"rx-0\", \"x\": 0, \"y\": 0, \"floor\": 2}", "\"floors\": [{\"floor\": 0}, {\"floor\": 1}]"),
             "site.venue.json: anchors[0].floor: floor 2 is not in floors"),
            (venue(Self.a0, "\"floors\": [{\"floor\": 0}, {\"floor\": 0}]"),
             "site.venue.json: floors[1].floor: duplicate floor 0 (first at floors[0])"),
            (venue(Self.a0, "\"floors\": [{\"name\": \"Ground\"}]"), "site.venue.json: floors[0].floor: missing"),
            (venue(Self.a0, "\"origin\": {\"lat\": 95, \"lon\": 0}"),
             "site.venue.json: origin.lat: expected a number from -90.0 to 90.0, got 95.0"),
            (venue(Self.a0, "\"origin\": {\"lat\": 52}"), "site.venue.json: origin.lon: missing"),
            (venue(Self.a0, "\"wallLoss\": 45"), "site.venue.json: wallLoss: expected a number from 0.0 to 30.0, got 45.0"),
            ("{\"name\": \"Site\"}", "site.venue.json: anchors: missing"),
            ("{\"anchors\": {}}", "site.venue.json: anchors: expected an array, got an object"),
            ("[1, 2]", "site.venue.json: (top level): expected an object, got an array"),
            ("{\"anchors\": [\n  {\"id\": \"a\" \"x\": 1}\n]}",
             "site.venue.json: line 2, column 14: expected ',' or '}'"),
            ("{\"anchors\": [], \"anchors\": []}", "site.venue.json: line 1, column 17: duplicate key \"anchors\""),
        ]
        for (text, expected) in cases {
            #expect(failure(text) == expected, "input: \(text)")
        }
    }

    @Test func modelDefaultsOverridesAndUnknownKeys() throws {
        let text = """
            {"model": {"measuredPower": -61, "shadowingSigma": 5.5}, "notes": {"anything": [1, {"deep": null}]},
             "anchors": [{"id": "a", "x": 1, "y": 2, "z": 2.5, "floor": 0, "pathLossExponent": 1.8, "color": "red"},
                         {"id": "b", "x": 3, "y": 4, "measuredPower": -65, "shadowingSigma": 3}],
             "origin": {"lat": 52.2297, "lon": 21.0122},
             "floors": [{"floor": 0, "name": "G", "elevation": 0.5, "plan": {"image": "plans/g.png",
                         "bounds": [[0, 0], [20, 15]]}}]}
            """
        let v = try VenueLoader.parse(Array(text.utf8), file: "office.venue.json", baseDirectory: "/venues/office")
        #expect(v.name == "office")
        #expect(v.model == PathLossModel(measuredPowerDBm: -61, pathLossExponent: 2, shadowingSigmaDB: 5.5))
        #expect(v.anchors[0].model(default: v.model)
            == PathLossModel(measuredPowerDBm: -61, pathLossExponent: 1.8, shadowingSigmaDB: 5.5))
        #expect(v.anchors[1].model(default: v.model)
            == PathLossModel(measuredPowerDBm: -65, pathLossExponent: 2, shadowingSigmaDB: 3))
        #expect(v.anchors[1].z == 0 && v.anchors[1].floor == 0)
        #expect(v.origin == Venue.Origin(latitude: 52.2297, longitude: 21.0122, bearingDegrees: 0))
        #expect(v.floors[0].planImage == "/venues/office/plans/g.png")
        #expect(v.floors[0].planBounds == Venue.Bounds(minX: 0, minY: 0, maxX: 20, maxY: 15))
        #expect(v.floors[0].elevationMeters == 0.5)
    }

    @Test func writerRoundTripsAndIsStable() throws {
        for name in ["boun-tetam.venue.json", "wut-flat.venue.json", "uji-geo.venue.json"] {
            var venue = try VenueLoader.load(path: Fixtures.path(name))
            venue.anchors[0].measuredPowerDBm = -63.25
            venue.anchors[0].pathLossExponent = 2.137
            venue.anchors[0].shadowingSigmaDB = 6.5
            venue.origin = Venue.Origin(latitude: 41.0851, longitude: 29.0441, bearingDegrees: 12.5)
            venue.floors[0].planImage = "/data/site/plan.png"
            let text = VenueWriter.json(venue, relativeTo: "/data/site")
            #expect(text.contains("\"image\": \"plan.png\""))
            let back = try VenueLoader.parse(Array(text.utf8), file: name, baseDirectory: "/data/site")
            #expect(back == venue)
            #expect(VenueWriter.json(back, relativeTo: "/data/site") == text)
        }
    }

    /// A room of `polygon` (JSON text) and the rest of its members `extra`.
    func room(_ id: String, _ polygon: String = "[[0, 0], [4, 0], [4, 3.5], [0, 3.5]]", _ extra: String = "")
        -> String
    {
        "{\"id\": \"\(id)\", \"polygon\": \(polygon)\(extra.isEmpty ? "" : ", " + extra)}"
    }

    @Test func roomsLoadWithDefaultsClosingPointsAndHoles() throws {
        let text = venue(Self.a0, """
            "floors": [{"floor": 0}, {"floor": 1, "name": "Upstairs", "elevation": 3}],
            "rooms": [\(room("kitchen", "[[0, 0], [4, 0], [4, 3.5], [0, 3.5]]", "\"name\": \"Kitchen\""
                                + ", \"colour\": \"#ddd\"")),
                      \(room("hall", "[[4, 0], [9, 0], [9, 2], [4, 0]]", "\"floor\": 1, \"name\": null, \"exit\": true")),
                      \(room("atrium", "[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]",
                             "\"holes\": [[[4, 4], [6, 4], [6, 6]], [[1, 1], [2, 1], [2, 2], [1, 1]]]"))]
            """)
        let v = try VenueLoader.parse(Array(text.utf8), file: "site.venue.json")
        let p = { (x: Double, y: Double) in Venue.PlanPoint(x: x, y: y) }
        #expect(v.rooms == [
            Venue.Room(id: "kitchen", name: "Kitchen", floor: 0, polygon: [p(0, 0), p(4, 0), p(4, 3.5), p(0, 3.5)]),
            Venue.Room(id: "hall", floor: 1, polygon: [p(4, 0), p(9, 0), p(9, 2), p(4, 0)], exit: true),
            Venue.Room(id: "atrium", floor: 0, polygon: [p(0, 0), p(10, 0), p(10, 10), p(0, 10), p(0, 0)],
                       holes: [[p(4, 4), p(6, 4), p(6, 6)], [p(1, 1), p(2, 1), p(2, 2), p(1, 1)]]),
        ])
        // `exit` is written only where it is true, and reads back.
        #expect(VenueWriter.json(v).contains(#""polygon": [[4.0, 0.0], [9.0, 0.0], [9.0, 2.0], [4.0, 0.0]], "exit": true}"#))
        #expect(VenueWriter.json(v).components(separatedBy: "\"exit\"").count == 2)
        #expect(try VenueLoader.parse(Array(VenueWriter.json(v).utf8), file: "w.venue.json") == v)
        // Venues without rooms (all of the real ones) load as before, with none.
        #expect(try VenueLoader.load(path: Fixtures.path("boun-tetam.venue.json")).rooms.isEmpty)
    }

    @Test func roomErrorsNameTheirPath() {
        let floors = "\"floors\": [{\"floor\": 0}, {\"floor\": 1}]"
        let triangle = "[[0, 0], [1, 0], [1, 1]]"
        let cases: [(String, String)] = [
            (venue(Self.a0, "\"rooms\": [\(room("a")), \(room("b")), \(room("c", "[[0, 0], [1], [1, 1]]"))]"),
             "site.venue.json: rooms[2].polygon[1]: expected [x, y]"),
            (venue(Self.a0, "\"rooms\": [\(room("a", "[[0, 0], [1, 0, 2], [1, 1]]"))]"),
             "site.venue.json: rooms[0].polygon[1]: expected [x, y]"),
            (venue(Self.a0, "\"rooms\": [\(room("a", "[[0, 0], \"1,0\", [1, 1]]"))]"),
             "site.venue.json: rooms[0].polygon[1]: expected [x, y]"),
            (venue(Self.a0, "\"rooms\": [\(room("a", "[[0, 0], [1, \"0\"], [1, 1]]"))]"),
             "site.venue.json: rooms[0].polygon[1][1]: expected a number, got a string"),
            (venue(Self.a0, "\"rooms\": [\(room("a", "[[0, 0], [1, 0]]"))]"),
             "site.venue.json: rooms[0].polygon: expected at least 3 points, got 2"),
            (venue(Self.a0, "\"rooms\": [\(room("a", "[[0, 0], [1, 0], [0, 0]]"))]"),
             "site.venue.json: rooms[0].polygon: expected at least 3 points, got 2"),
            (venue(Self.a0, "\"rooms\": [\(room("a", "[]"))]"),
             "site.venue.json: rooms[0].polygon: expected at least 3 points, got 0"),
            (venue(Self.a0, "\"rooms\": [\(room("a", "[[0, 0], [1, 0], [1, NaN]]"))]"),
             "site.venue.json: rooms[0].polygon[2][1]: expected a finite number, got nan"),
            (venue(Self.a0, "\"rooms\": [\(room("a", triangle, "\"holes\": [[[0, 0], [1, 1]]]"))]"),
             "site.venue.json: rooms[0].holes[0]: expected at least 3 points, got 2"),
            (venue(Self.a0, "\"rooms\": [\(room("a", triangle, "\"holes\": [[[0, 0], 5, [1, 1]]]"))]"),
             "site.venue.json: rooms[0].holes[0][1]: expected [x, y]"),
            (venue(Self.a0, "\"rooms\": [\(room("kitchen")), \(room("hall")), \(room("kitchen"))]"),
             "site.venue.json: rooms[2].id: duplicate room id \"kitchen\" (first at rooms[0])"),
            (venue(Self.a0, "\"rooms\": [{\"polygon\": [[0, 0], [1, 0], [1, 1]]}]"),
             "site.venue.json: rooms[0].id: missing"),
            (venue(Self.a0, "\"rooms\": [\(room(""))]"), "site.venue.json: rooms[0].id: expected a non-empty string"),
            (venue(Self.a0, "\"rooms\": [{\"id\": \"a\"}]"), "site.venue.json: rooms[0].polygon: missing"),
            (venue(Self.a0, "\"rooms\": [\(room("a", triangle, "\"floor\": 0.5"))]"),
             "site.venue.json: rooms[0].floor: expected an integer, got 0.5"),
            (venue(Self.a0, floors + ", \"rooms\": [\(room("a")), \(room("b", triangle, "\"floor\": 2"))]"),
             "site.venue.json: rooms[1].floor: floor 2 is not in floors"),
            (venue(Self.a0, "\"rooms\": {\"kitchen\": []}"),
             "site.venue.json: rooms: expected an array, got an object"),
            (venue(Self.a0, "\"rooms\": [\(room("a", triangle, "\"name\": 7"))]"),
             "site.venue.json: rooms[0].name: expected a string, got a number"),
        ]
        for (text, expected) in cases {
            #expect(failure(text) == expected, "input: \(text)")
        }
    }

    @Test func roomsRoundTripThroughTheWriter() throws {
        let p = { (x: Double, y: Double) in Venue.PlanPoint(x: x, y: y) }
        var venue = try VenueLoader.load(path: Fixtures.path("wut-flat.venue.json"))
        venue.floors.append(Venue.Floor(floor: 1, name: "Loft", elevationMeters: 2.75))
        venue.rooms = [
            Venue.Room(id: "living", name: "Living \"room\"", floor: 0,
                       polygon: [p(0, 0), p(4.125, 0), p(4.125, 3.3), p(0.1, 3.3)]),
            Venue.Room(id: "loft", floor: 1, polygon: [p(0, 0), p(3, 0), p(3, 2), p(0, 2), p(0, 0)],
                       holes: [[p(1, 0.5), p(1.5, 0.5), p(1.5, 1)]]),
        ]
        let text = VenueWriter.json(venue)
        #expect(text.contains("""
                {"id": "loft", "floor": 1, "polygon": [[0.0, 0.0], [3.0, 0.0], [3.0, 2.0], [0.0, 2.0], [0.0, 0.0]], \
            "holes": [[[1.0, 0.5], [1.5, 0.5], [1.5, 1.0]]]}
            """))
        let back = try VenueLoader.parse(Array(text.utf8), file: "wut-flat.venue.json")
        #expect(back == venue)
        #expect(VenueWriter.json(back) == text)
        // A fitted wall loss is the last key and survives the trip.
        var walled = venue
        walled.wallLossDB = 2.6884388233616403
        let walledText = VenueWriter.json(walled)
        #expect(walledText.hasSuffix(",\n  \"wallLoss\": 2.6884388233616403\n}\n"))
        #expect(try VenueLoader.parse(Array(walledText.utf8), file: "wut-flat.venue.json") == walled)
    }

    @Test func writerLayoutIsGolden() {
        let venue = Venue(name: "Tiny \"lab\"", model: .uncalibrated,
                          anchors: [Anchor(id: "rx-1", x: 1, y: 2.5, z: 2.4, pathLossExponent: 1.75)],
                          bounds: Venue.Bounds(minX: 0, minY: 0, maxX: 4, maxY: 3))
        let expected = """
            {
              "name": "Tiny \\"lab\\"",
              "model": {"measuredPower": -59.0, "pathLossExponent": 2.0, "shadowingSigma": 5.4},
              "anchors": [
                {"id": "rx-1", "x": 1.0, "y": 2.5, "z": 2.4, "floor": 0, "pathLossExponent": 1.75}
              ],
              "bounds": [[0.0, 0.0], [4.0, 3.0]]
            }

            """
        #expect(VenueWriter.json(venue) == expected)
        var withRooms = venue
        withRooms.rooms = [Venue.Room(id: "lab", name: "Lab", polygon: [Venue.PlanPoint(x: 0, y: 0),
                                                                       Venue.PlanPoint(x: 4, y: 0),
                                                                       Venue.PlanPoint(x: 4, y: 3)])]
        #expect(VenueWriter.json(withRooms) == expected.replacingOccurrences(of: """
              "bounds": [[0.0, 0.0], [4.0, 3.0]]
            }
            """, with: """
              "bounds": [[0.0, 0.0], [4.0, 3.0]],
              "rooms": [
                {"id": "lab", "name": "Lab", "floor": 0, "polygon": [[0.0, 0.0], [4.0, 0.0], [4.0, 3.0]]}
              ]
            }
            """))
    }
}
