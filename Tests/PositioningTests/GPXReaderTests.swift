import Foundation
import Testing

@testable import Formats

/// The path of a GPX fixture (files in the shapes real loggers write; `Fixtures/GPX/README.md`).
func gpxFixture(_ name: String) -> String { Fixtures.path("GPX/" + name) }

/// GPX through expat (`XMLReader`) and the GPX builder: real loggers' shapes, another program's output, elements out
/// of place, and malformed files refused with their line and column.
@Suite struct GPXReaderTests {
    /// The error a GPX text gives, as its description; nil when it reads.
    static func failure(_ text: String) -> String? {
        do {
            _ = try GPXParser.parse(Array(text.utf8), file: "t.gpx")
            return nil
        } catch {
            return error.description
        }
    }

    @Test func garminExportNamespacesAndExtensionsSkipped() throws {
        let document = try GPXParser.parse(path: gpxFixture("garmin-edge-walk.gpx"))
        #expect(document.tracks.count == 1)
        #expect(document.tracks[0].name == "Warsaw Walking")
        let points = document.tracks[0].segments[0]
        #expect(points.count == 4)
        #expect(points[1].latitude == 52.22979 && points[1].longitude == 21.0122)
        #expect(points[1].elevationMeters == 101.6)
        #expect(points[1].time == 1_714_557_605)
    }

    @Test func stravaExportTwoSegmentsOffsetsAndFractionalSeconds() throws {
        let document = try GPXParser.parse(path: gpxFixture("strava-two-segments.gpx"))
        let segments = document.tracks[0].segments
        #expect(segments.map(\.count) == [2, 2])
        // 09:15:04.500+02:00 is 07:15:04.5Z.
        #expect(abs((segments[0][1].time ?? 0) - 1_717_312_504.5) < 1e-3)
        let (points, starts) = try #require(document.firstPath())
        #expect(starts == [0, 2])
        #expect(points.count == 4)
    }

    /// OsmAnd's `gpx:` prefix is a namespace expat resolves: the route reads, each point with the line it starts on.
    @Test func osmandRouteWithAPrefix() throws {
        let document = try GPXParser.parse(path: gpxFixture("osmand-route-no-times.gpx"))
        #expect(document.tracks.isEmpty)
        #expect(document.routes.map(\.name) == ["To the office"])
        #expect(document.routes[0].points.map(\.line) == [11, 14, 15])
        #expect(document.routes[0].points.allSatisfy { $0.time == nil })
    }

    @Test("broken files name the file, the line and column, and the problem", arguments: [
        ("broken-unclosed-trkseg.gpx", "broken-unclosed-trkseg.gpx:7:5: malformed XML: mismatched tag"),
        ("broken-bad-latitude.gpx", "broken-bad-latitude.gpx:6:7: <trkpt> lat \"52,2298\" is not a number"),
        ("broken-bad-time.gpx", "broken-bad-time.gpx:5:65: <time> \"yesterday at noon\" is not an ISO 8601 time"),
        ("broken-not-gpx.gpx", "broken-not-gpx.gpx:2:1: not a GPX file: the root element is <kml>"),
    ])
    func brokenFiles(name: String, expected: String) throws {
        let error = #expect(throws: GPXError.self) { try GPXParser.parse(path: gpxFixture(name)) }
        #expect(error?.description == gpxFixture(name).dropLast(name.count) + expected)
    }

    /// What expat refuses, with its line and column; what the GPX builder refuses on top (an entity declared).
    @Test(arguments: [
        ("<gpx><trk></gpx>", "t.gpx:1:13: malformed XML: mismatched tag"),
        ("<gpx>\n<trk>\n", "t.gpx:3:1: malformed XML: no element found"),
        ("<gpx a=\"1\" a=\"2\"/>", "t.gpx:1:12: malformed XML: duplicate attribute"),
        ("<gpx a=1/>", "t.gpx:1:8: malformed XML: not well-formed (invalid token)"),
        ("<gpx>&nbsp;</gpx>", "t.gpx:1:6: malformed XML: undefined entity"),
        ("<gpx>AT&T</gpx>", "t.gpx:1:10: malformed XML: not well-formed (invalid token)"),
        ("<gpx/><gpx/>", "t.gpx:1:7: malformed XML: junk after document element"),
        ("", "t.gpx:1:1: malformed XML: no element found"),
        ("<gpx:gpx/>", "t.gpx:1:1: malformed XML: unbound prefix"),
        ("<?xml version=\"1.0\" encoding=\"KOI8-R\"?><gpx/>", "t.gpx:1:31: malformed XML: unknown encoding"),
        ("<!DOCTYPE gpx [<!ENTITY lol \"lol\">]>\n<gpx>&lol;</gpx>",
         "t.gpx:1:29: malformed XML: the document type declares an entity: not read"),
        ("<gpx version=\"1.1\">\n  <trk><trkseg><trkpt lon=\"1\"/></trkseg></trk>\n</gpx>",
         "t.gpx:2:16: <trkpt> has no lat attribute"),
        ("<kml/>", "t.gpx:1:1: not a GPX file: the root element is <kml>"),
    ])
    func malformedDocumentsFailWithTheirPosition(document: String, expected: String) {
        #expect(Self.failure(document) == expected)
    }

    @Test func bytesThatAreNotUTF8AreRefusedWhereTheyStand() {
        let bytes = Array("<gpx>\n<name>ab".utf8) + [0xC3, 0x28] + Array("</name></gpx>".utf8)
        #expect(throws: GPXError(file: "t.gpx", line: 2, column: 9, message: "malformed XML: not well-formed (invalid token)")) {
            try GPXParser.parse(bytes, file: "t.gpx")
        }
    }

    /// expat decodes entities, character references, CDATA and other encodings it knows (here ISO-8859-1).
    @Test func textIsDecoded() throws {
        let latin1: [UInt8] = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><gpx><trk><name>Caf".utf8) + [0xE9]
            + Array(" &amp; &#x1F600; <![CDATA[<raw>]]></name></trk></gpx>".utf8)
        let document = try GPXParser.parse(latin1, file: "latin1.gpx")
        #expect(document.tracks.map(\.name) == ["Café & 😀 <raw>"])
    }

    /// A GPX file written by another program (Debian's gpsbabel: its own header, bounds, metadata and number forms)
    /// reads to the same points as the file it was converted from.
    @Test func readsWhatGpsbabelWrites() throws {
        let gpsbabel = ["/usr/bin/gpsbabel", "/usr/local/bin/gpsbabel"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let gpsbabel else {
            if ProcessInfo.processInfo.environment["BLUEDOT_REQUIRE_TOOLS"] == "1" {
                Issue.record("gpsbabel is missing and BLUEDOT_REQUIRE_TOOLS=1 requires it (apt-get install gpsbabel)")
            }
            return
        }
        let original = try GPXParser.parse(path: gpxFixture("strava-two-segments.gpx"))
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("bluedot-gpsbabel-\(UUID()).gpx")
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gpsbabel)
        process.arguments = ["-t", "-i", "gpx", "-f", gpxFixture("strava-two-segments.gpx"), "-o", "gpx,gpxver=1.1",
                             "-F", output.path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let converted = try GPXParser.parse(path: output.path)
        let before = original.tracks.flatMap(\.segments).map { $0.map { [$0.latitude, $0.longitude, $0.time ?? -1] } }
        let after = converted.tracks.flatMap(\.segments).map { $0.map { [$0.latitude, $0.longitude, $0.time ?? -1] } }
        #expect(after.count == before.count)
        #expect(zip(after.joined(), before.joined()).allSatisfy { zip($0, $1).allSatisfy { abs($0 - $1) < 1e-6 } })
        #expect(after.joined().count == before.joined().count && !after.isEmpty)
    }

    /// Tracks, segments, routes and points count only where GPX puts them; out of place (a route inside a
    /// waypoint, a track inside metadata) they are skipped like unknown elements. The gpx fuzz target's first
    /// crash: a route's name inside a waypoint was written to a route that did not exist.
    @Test func gpxElementsOutOfPlaceAreSkipped() throws {
        let text = """
            <gpx version="1.1"><wpt lat="1" lon="2"><rte><name>x</name><rtept lat="1" lon="2"><time>late</time>\
            </rtept></rte></wpt><metadata><trk><name>y</name><trkseg><trkpt lat="1" lon="1"/></trkseg></trk>\
            </metadata><extensions><trkseg><trkpt lat="3" lon="3"/></trkseg></extensions>\
            <trk><name>kept</name><trkseg><trkpt lat="4" lon="5"><ele>7</ele></trkpt></trkseg></trk></gpx>
            """
        let document = try GPXParser.parse(Array(text.utf8), file: "out-of-place.gpx")
        #expect(document.routes.isEmpty)
        #expect(document.tracks.map(\.name) == ["kept"])
        #expect(document.tracks[0].segments.map { $0.map(\.latitude) } == [[4]])
        #expect(document.tracks[0].segments[0][0].elevationMeters == 7)
    }
}
