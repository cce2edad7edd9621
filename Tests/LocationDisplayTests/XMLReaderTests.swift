import Foundation
import Testing
@testable import LocationDisplay

/// Records what the reader hands on, as lines such as `<a x=1>@2`, `"text"`, `</a>@3`.
private struct Recorder: XMLContentHandler {
    var events: [String] = []

    mutating func startElement(_ name: String, attributes: [String: String], line: Int) {
        let attributes = attributes.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        events.append("<\(name)\(attributes)>@\(line)")
    }

    mutating func endElement(_ name: String, line: Int) {
        events.append("</\(name)>@\(line)")
    }

    mutating func characters(_ text: String) {
        guard !text.allSatisfy(\.isWhitespace) else { return }
        if let last = events.last, last.hasPrefix("\""), last.hasSuffix("\"") {
            events[events.count - 1] = String(last.dropLast()) + text + "\""
        } else {
            events.append("\"\(text)\"")
        }
    }
}

private func read(_ text: String) throws(XMLReader.Failure) -> [String] {
    var recorder = Recorder()
    try XMLReader.read(Array(text.utf8), into: &recorder)
    return recorder.events
}

/// The failure a document gives, as `line: message`; nil when it reads.
private func failure(_ text: String) -> String? {
    do {
        _ = try read(text)
        return nil
    } catch {
        return "\(error.line): \(error.message)"
    }
}

@Suite struct XMLReaderTests {
    @Test func elementsAttributesTextAndLines() throws {
        let events = try read("""
            \u{FEFF}<?xml version="1.0" encoding="UTF-8"?>
            <!-- a comment -->
            <!DOCTYPE gpx>
            <gpx:gpx xmlns:gpx="http://www.topografix.com/GPX/1/1" version='1.1'>
              <gpx:trkpt lat="52.1" lon = "21.0"><time>2024-05-01T10:00:00Z</time></gpx:trkpt>
              <wpt lat="1" lon="2"/><?pi data?>
              <name>Tom &amp; Jerry &lt;3 &#233;&#x1F600; <![CDATA[<raw> & ]]></name>
            </gpx:gpx>
            <!-- after -->
            """)
        #expect(events == [
            "<gpx version=1.1>@4",
            "<trkpt lat=52.1 lon=21.0>@5", "<time>@5", "\"2024-05-01T10:00:00Z\"", "</time>@5", "</trkpt>@5",
            "<wpt lat=1 lon=2>@6", "</wpt>@6",
            "<name>@7", "\"Tom & Jerry <3 é😀 <raw> & \"", "</name>@7",
            "</gpx>@8",
        ])
    }

    @Test func entitiesInAttributesAndLinesInsideText() throws {
        let events = try read("<a t=\"&quot;x&apos; &gt; &#10;\">one\ntwo\n<b/>\n</a>")
        #expect(events == ["<a t=\"x' > \n>@1", "\"one\ntwo\n\"", "<b>@3", "</b>@3", "</a>@4"])
    }

    @Test(arguments: [
        ("<a><b></a>", "1: malformed XML: </a> closes <b> opened at line 1"),
        ("<a>\n<b>\n", "3: malformed XML: <b> opened at line 2 is never closed"),
        ("<a x=\"1\" x=\"2\"/>", "1: malformed XML: <a> has the attribute x twice"),
        ("<a x=1/>", "1: malformed XML: the attribute x of <a> has no quoted value"),
        ("<a x=\"1\"y=\"2\"/>", "1: malformed XML: no space before an attribute of <a>"),
        ("<a x=\"<\"/>", "1: malformed XML: a < in the value of x"),
        ("<a>&nbsp;</a>", "1: malformed XML: unknown entity &nbsp;"),
        ("<a>AT&T</a>", "1: malformed XML: an & that starts no entity (write &amp;)"),
        ("<a>&#0;</a>", "1: malformed XML: &#0; is not a character XML allows"),
        ("<a>&#xD800;</a>", "1: malformed XML: &#xD800; is not a character XML allows"),
        ("<a/><b/>", "1: malformed XML: a second root element"),
        ("<a/>\ntext", "2: malformed XML: text after the root element"),
        ("text<a/>", "1: malformed XML: text before the root element"),
        ("", "1: malformed XML: no root element"),
        ("<!-- only a comment -->", "1: malformed XML: no root element"),
        ("<a><!-- open\n</a>", "1: malformed XML: a comment opened at line 1 never ends"),
        ("<a><![CDATA[x</a>", "1: malformed XML: a CDATA section opened at line 1 never ends"),
        ("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a/>",
         "1: malformed XML: the encoding iso-8859-1 is not read (only UTF-8)"),
        ("<!DOCTYPE a [<!ENTITY lol \"lol\">]><a>&lol;</a>",
         "1: malformed XML: the document type declares an entity: not read"),
        ("<1a/>", "1: malformed XML: a name that starts with 1"),
        ("<a></ a>", "1: malformed XML: a tag or attribute without a name"),
        ("<a x=\"1", "1: malformed XML: the value of x never ends"),
    ])
    func malformedDocumentsFailWithTheirLine(document: String, expected: String) {
        #expect(failure(document) == expected)
    }

    @Test func bytesThatAreNotUTF8AreRefused() {
        var recorder = Recorder()
        #expect(throws: XMLReader.Failure.self) {
            try XMLReader.read(Array("<a>".utf8) + [0xC3, 0x28] + Array("</a>".utf8), into: &recorder)
        }
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
        let document = try GPXParser.parse(Data(text.utf8), file: "out-of-place.gpx")
        #expect(document.routes.isEmpty)
        #expect(document.tracks.map(\.name) == ["kept"])
        #expect(document.tracks[0].segments.map { $0.map(\.latitude) } == [[4]])
        #expect(document.tracks[0].segments[0][0].elevationMeters == 7)
    }
}
