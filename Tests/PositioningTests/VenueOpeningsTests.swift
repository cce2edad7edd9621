import Formats
import Foundation
import Testing
@testable import Positioning

/// The venue file's `openings` (doors and passages in walls): read, validated like rooms, written back.
@Suite struct VenueOpeningsTests {
    /// The error message for venue JSON `text`, or nil if it loads.
    func failure(_ text: String) -> String? {
        do {
            _ = try VenueLoader.parse(Array(text.utf8), file: "site.venue.json")
            return nil
        } catch {
            return error.description
        }
    }

    /// A venue with one anchor, two floors and the given openings.
    func venue(openings: String) -> String {
        #"{"anchors": [{"id": "rx-0", "x": 0, "y": 0}], "floors": [{"floor": 0}, {"floor": 1}], "openings": [\#(openings)]}"#
    }

    @Test func readsAndWritesOpenings() throws {
        let text = venue(openings: """
            {"id": "front-door", "floor": 0, "category": "pedestrian", "line": [[0, 1.5], [0, 2.4]]},
            {"id": "arch", "floor": 1, "line": [[4, 0], [4.5, 0.5], [5, 0]], "width": 3}
            """)
        let v = try VenueLoader.parse(Array(text.utf8), file: "site.venue.json")
        #expect(v.openings == [
            Venue.Opening(id: "front-door", floor: 0, category: "pedestrian",
                          line: [Venue.PlanPoint(x: 0, y: 1.5), Venue.PlanPoint(x: 0, y: 2.4)]),
            Venue.Opening(id: "arch", floor: 1, line: [Venue.PlanPoint(x: 4, y: 0), Venue.PlanPoint(x: 4.5, y: 0.5),
                                                        Venue.PlanPoint(x: 5, y: 0)]),
        ])
        let written = VenueWriter.json(v)
        #expect(written.contains(#"""
              "openings": [
                {"id": "front-door", "floor": 0, "category": "pedestrian", "line": [[0.0, 1.5], [0.0, 2.4]]},
                {"id": "arch", "floor": 1, "line": [[4.0, 0.0], [4.5, 0.5], [5.0, 0.0]]}
              ]
            """#))
        let back = try VenueLoader.parse(Array(written.utf8), file: "site.venue.json")
        #expect(back == v)
        #expect(VenueWriter.json(back) == written)
    }

    /// Venues without openings load as before, and are written without the key.
    @Test func existingVenuesStayValid() throws {
        for name in ["boun-tetam.venue.json", "wut-flat.venue.json", "uji-geo.venue.json"] {
            let v = try VenueLoader.load(path: Fixtures.path(name))
            #expect(v.openings.isEmpty)
            #expect(!VenueWriter.json(v).contains("openings"))
        }
        let bare = try VenueLoader.parse(Array(#"{"anchors": [], "openings": null}"#.utf8), file: "v.json")
        #expect(bare.openings.isEmpty)
        #expect(Venue(name: "x", anchors: []).openings == [])
    }

    @Test func goldenErrorMessages() {
        #expect(failure(venue(openings: #"{"id": "d", "line": [[0, 0]]}"#))
            == "site.venue.json: openings[0].line: expected at least 2 points, got 1")
        #expect(failure(venue(openings: #"{"id": "d", "line": [[0, 0], [1]]}"#))
            == "site.venue.json: openings[0].line[1]: expected [x, y]")
        #expect(failure(venue(openings: #"{"id": "d", "line": [[0, 0], [1, 0]]}, {"id": "d", "line": [[0, 0], [1, 0]]}"#))
            == "site.venue.json: openings[1].id: duplicate opening id \"d\" (first at openings[0])")
        #expect(failure(venue(openings: #"{"id": "d", "floor": 3, "line": [[0, 0], [1, 0]]}"#))
            == "site.venue.json: openings[0].floor: floor 3 is not in floors")
        #expect(failure(venue(openings: #"{"id": "", "line": [[0, 0], [1, 0]]}"#))
            == "site.venue.json: openings[0].id: expected a non-empty string")
        #expect(failure(venue(openings: #"{"line": [[0, 0], [1, 0]]}"#)) == "site.venue.json: openings[0].id: missing")
        #expect(failure(venue(openings: #"{"id": "d", "category": 1, "line": [[0, 0], [1, 0]]}"#))
            == "site.venue.json: openings[0].category: expected a string, got a number")
        #expect(failure(#"{"anchors": [], "openings": {}}"#) == "site.venue.json: openings: expected an array, got an object")
        // Room rings and opening lines share their rules with the importers (`VenueRules`).
        #expect(failure(#"{"anchors": [], "rooms": [{"id": "r", "polygon": [[0, 0], [1, 0], [0, 0]]}]}"#)
            == "site.venue.json: rooms[0].polygon: expected at least 3 points, got 2")
    }
}
