import Formats
import Foundation
import Testing
@testable import Positioning

/// `bluedot venue import --espresense`: ESPresense-companion configurations to venues.
@Suite struct ESPresenseConfigImportTests {
    static let example = "espresense-companion-config.example.yaml"

    /// The import error of `yaml`, or nil.
    func failure(_ yaml: String) -> String? {
        do {
            _ = try ESPresenseConfigImport.parse(yaml, file: "config.yaml")
            return nil
        } catch {
            return error.description
        }
    }

    /// The companion's real example: two floors, thirteen rooms, fourteen nodes (one of them in a car).
    @Test func importsTheCompanionsExample() throws {
        let imported = try ESPresenseConfigImport.load(path: Fixtures.path(Self.example))
        let v = imported.venue
        #expect(v.name == "espresense-companion-config.example")
        #expect(v.floors == [Venue.Floor(floor: 0, name: "First Floor", elevationMeters: 0),
                             Venue.Floor(floor: 1, name: "Second Floor", elevationMeters: 3)])
        #expect(v.rooms.count == 13)
        #expect(v.rooms.filter { $0.floor == 0 }.map(\.id)
            == ["powder", "den", "family", "kitchen", "garage", "living", "dining", "foyer", "laundry"])
        #expect(v.rooms.filter { $0.floor == 1 }.map(\.id) == ["master", "office", "master_bathroom", "master_closet"])
        #expect(v.rooms[8] == Venue.Room(id: "laundry", name: "Laundry", floor: 0, polygon: [
            Venue.PlanPoint(x: 0, y: 5.4), Venue.PlanPoint(x: 0, y: 7.6), Venue.PlanPoint(x: 3.5, y: 7.6),
            Venue.PlanPoint(x: 3.5, y: 5.4), Venue.PlanPoint(x: 0, y: 5.4),
        ]))
        #expect(v.anchors.map(\.id) == ["master", "bathroom", "upstairs_hallway", "garage", "office", "family",
                                        "kitchen", "nook", "dining", "basement", "laundry", "back_stairs", "foyer"])
        #expect(v.anchors.map(\.floor) == [1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0])
        // "Back Stairs": [4.5, 7.5, 3.4] on floors first and second; 3.4 m is in the second's z range (3 to 5.5),
        // so the node stands on floor 1, 0.4 m above its base (3.4 − 3 rounded to the micrometre: exactly 0.4).
        let stairs = v.anchors[11]
        #expect(stairs == Anchor(id: "back_stairs", x: 4.5, y: 7.5, z: 0.4, floor: 1))
        #expect(v.anchors[8] == Anchor(id: "dining", x: 16.3, y: 2.6, z: 1.29, floor: 0))
        #expect(v.bounds == Venue.Bounds(minX: 0, minY: 0, maxX: 17, maxY: 18))
        #expect(v.origin == Venue.Origin(latitude: 38.897957, longitude: -77.036560, bearingDegrees: 10))
        #expect(v.model == .uncalibrated)
        #expect(imported.notes == [
            "nodes[9] \"Basement\": z -0.5 is outside floor first (0.0...3.0); kept on it at -0.5 m from its base",
            "nodes[13] \"VW EOS\": not stationary, left out",
        ])
    }

    @Test func roundTripsThroughTheVenueFile() throws {
        let venue = try ESPresenseConfigImport.load(path: Fixtures.path(Self.example)).venue
        let text = VenueWriter.json(venue)
        let back = try VenueLoader.parse(Array(text.utf8), file: "home.venue.json")
        #expect(back == venue)
        #expect(VenueWriter.json(back) == text)
    }

    /// The companion's `GetId()` for a name without an id: TextExtensions' `ToSnakeCase`, lower-cased.
    @Test func companionIDs() {
        let cases = [("Upstairs Hallway", "upstairs_hallway"), ("VW EOS", "vw_eos"), ("Back Stairs", "back_stairs"),
                     ("LivingRoom", "living_room"), ("HTTPServer", "http_server"), ("Room2B", "room2_b"),
                     ("  Kid's room #2 ", "kid_s_room_2"), ("Café", "caf"), ("master_bathroom", "master_bathroom"),
                     ("first-floor", "first_floor"), ("x", "x"), ("!!", "")]
        for (name, id) in cases {
            #expect(ESPresenseConfigImport.companionID(name) == id, "name: \(name)")
        }
    }

    @Test func smallConfigurationDetails() throws {
        let yaml = """
            floors:
              - id: Ground
                bounds: [[10, 8, 0], [0, 0, 2.8]]
                rooms:
                  - name: Hallway
                    points: [[0, 0], [2, 0], [2, 8]]
              - name: Upper Floor
                bounds: [[0, 0, 2.8], [12, 8, 5.6]]
                rooms:
                  - name: Hallway
                    points: [[0, 0], [3, 0], [3, 8], [0, 0]]
                  - id: Bath
                    points: [[5, 0], [7, 0], [7, 3]]
            nodes:
              - id: Den-Node
                point: [1, 2]
                floors: [GROUND]
              - name: Study
                point: [4, 4, 4.5]
              - name: Spare
                enabled: false
                point: [0, 0, 1]
              - name: Pending
            """
        let imported = try ESPresenseConfigImport.parse(yaml, file: "small.yml")
        let v = imported.venue
        #expect(v.name == "small")
        #expect(v.floors.map(\.name) == ["Ground", "Upper Floor"])
        #expect(v.floors.map(\.elevationMeters) == [0, 2.8])
        #expect(v.bounds == Venue.Bounds(minX: 0, minY: 0, maxX: 12, maxY: 8))
        #expect(v.rooms.map(\.id) == ["ground_hallway", "upper_floor_hallway", "Bath"])
        #expect(v.rooms.map(\.name) == ["Hallway", "Hallway", nil])
        #expect(v.anchors == [Anchor(id: "den-node", x: 1, y: 2, z: 0, floor: 0),
                              Anchor(id: "study", x: 4, y: 4, z: 1.7, floor: 1)])
        #expect(v.origin == nil)
        #expect(imported.notes == ["nodes[2] \"Spare\": disabled, left out",
                                   "nodes[3] \"Pending\": no point, left out"])
    }

    @Test func goldenErrorsNameFileLineAndField() {
        let floor = "floors:\n  - id: ground\n    bounds: [[0, 0, 0], [10, 8, 3]]\n"
        let cases: [(String, String)] = [
            (floor + "nodes:\n  - name: Kitchen\n    point: [1, 2, 1]\n  - name: Hall\n    point: [1]\n",
             "config.yaml:8: nodes[1].point: expected [x, y, z]"),
            (floor + "nodes:\n  - name: Kitchen\n    point: [1, two, 1]\n",
             "config.yaml:6: nodes[0].point[1]: expected a number, got \"two\""),
            (floor + "nodes:\n  - name: Kitchen\n    point: [1, 2, .nan]\n",
             "config.yaml:6: nodes[0].point[2]: expected a finite number, got \".nan\""),
            (floor + "nodes:\n  - name: Kitchen\n    point: {x: 1}\n",
             "config.yaml:6: nodes[0].point: expected [x, y, z]"),
            (floor + "nodes:\n  - name: Kitchen\n    point: [1, 2, 1]\n    floors: [ground, attic]\n",
             "config.yaml:7: nodes[0].floors[1]: no floor \"attic\" (floors: ground)"),
            ("nodes:\n  - name: Kitchen\n    point: [1, 2, 1]\n    floors: [ground]\n",
             "config.yaml:4: nodes[0].floors[0]: no floor \"ground\" (the configuration has no floors)"),
            (floor + "nodes:\n  - name: Kitchen\n    point: [1, 2, 1]\n  - id: KITCHEN\n    point: [3, 2, 1]\n",
             "config.yaml:7: nodes[1]: duplicate node id \"kitchen\" (first at nodes[0])"),
            (floor + "nodes:\n  - point: [1, 2, 1]\n", "config.yaml:5: nodes[0]: needs a name or an id"),
            (floor + "nodes:\n  - name: \"!!\"\n    point: [1, 2, 1]\n",
             "config.yaml:5: nodes[0].name: has no letters or digits to make an id of; give an id"),
            (floor + "nodes:\n  - id: a/b\n    point: [1, 2, 1]\n",
             "config.yaml:5: nodes[0].id: expected a non-empty id without '/', '+' or '#'"),
            (floor + "nodes:\n  - name: Kitchen\n    point: [1, 2, 1]\n    stationary: maybe\n",
             "config.yaml:7: nodes[0].stationary: expected true or false, got \"maybe\""),
            (floor + "nodes:\n  - name: Spare\n    enabled: false\n    point: [1, 2, 1]\n",
             "config.yaml:1: nodes: no enabled, stationary node with a point"),
            (floor, "config.yaml:1: nodes: no enabled, stationary node with a point"),
            ("floors:\n  - id: ground\n    bounds: [[0, 0, 0]]\nnodes: []\n",
             "config.yaml:3: floors[0].bounds: expected [[x, y, z], [x, y, z]]"),
            ("floors:\n  - id: g\n    rooms:\n      - name: Den\n        points: [[0, 0], [1, 0], [0, 0]]\n",
             "config.yaml:5: floors[0].rooms[0].points: expected at least 3 points, got 2"),
            ("floors:\n  - id: g\n    rooms:\n      - name: Den\n        points: [[0, 0], [1], [1, 1]]\n",
             "config.yaml:5: floors[0].rooms[0].points[1]: expected [x, y]"),
            ("floors:\n  - id: g\n    rooms:\n      - name: Den\n",
             "config.yaml:4: floors[0].rooms[0].points: missing"),
            ("floors:\n  - id: g\n    rooms:\n      - name: Den\n        points: [[0, 0], [1, 0], [1, 1]]\n"
                + "      - id: den\n        points: [[0, 0], [1, 0], [1, 1]]\n",
             "config.yaml:6: floors[0].rooms[1]: duplicate room id \"den\" (first at floors[0].rooms[0])"),
            ("floors:\n  - id: g\n  - name: G\n",
             "config.yaml:3: floors[1]: duplicate floor id \"g\" (first at floors[0])"),
            ("floors:\n  - id: a\n    rooms:\n      - id: hall\n        points: [[0, 0], [1, 0], [1, 1]]\n"
                + "      - id: b_hall\n        points: [[0, 0], [1, 0], [1, 1]]\n"
                + "  - id: b\n    rooms:\n      - id: hall\n        points: [[0, 0], [1, 0], [1, 1]]\n",
             "config.yaml:10: floors[1].rooms[0]: room id \"b_hall\" is also the id of floors[0].rooms[1]"),
            (floor + "gps:\n  latitude: 95\n  longitude: 0\nnodes:\n  - name: K\n    point: [1, 2, 1]\n",
             "config.yaml:5: gps.latitude: expected a number from -90.0 to 90.0, got 95.0"),
            ("- name: Kitchen\n", "config.yaml:1: (top level): expected a mapping, got a list"),
            ("nodes: {name: Kitchen}\n", "config.yaml:1: nodes: expected a list, got a mapping"),
            ("nodes:\n  - name: Kitchen\n    point: [1, 2, 1\n",
             "config.yaml:4:1: did not find expected ',' or ']', while parsing a flow sequence at line 3, column 12"),
            ("nodes:\n  - name: Kitchen\n  name: Hall\n",
             "config.yaml:3:3: did not find expected '-' indicator, while parsing a block collection at line 2, column 3"),
            ("nodes:\n  - name: Kitchen\n    name: Hall\n", "config.yaml:3:5: duplicate key \"name\" (first at line 2)"),
            ("", "config.yaml: no YAML document"),
        ]
        for (yaml, expected) in cases {
            #expect(failure(yaml) == expected, "yaml:\n\(yaml)")
        }
    }

    @Test func unreadableFile() {
        #expect(throws: ESPresenseConfigError(file: "missing.yaml", line: nil, path: "",
                                              message: "cannot read /nonexistent/missing.yaml: No such file or directory")) {
            try ESPresenseConfigImport.load(path: "/nonexistent/missing.yaml")
        }
    }
}
