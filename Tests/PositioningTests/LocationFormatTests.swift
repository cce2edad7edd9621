import BlueDotCore
import Formats
import JSON
import Testing
@testable import Positioning

@Suite struct LocationFormatTests {
    @Test func fixedDecimals() {
        #expect(JSONText.fixed(1639485931, decimals: 3) == "1639485931.000")
        #expect(JSONText.fixed(4.21, decimals: 3) == "4.210")
        #expect(JSONText.fixed(-0.0004, decimals: 3) == "0.000")
        #expect(JSONText.fixed(-0.0006, decimals: 3) == "-0.001")
        #expect(JSONText.fixed(-12.25, decimals: 1) == "-12.3")
        #expect(JSONText.fixed(52.22977123456, decimals: 7) == "52.2297712")
        #expect(JSONText.fixed(0.05, decimals: 0) == "0")
        #expect(JSONText.fixed(.nan, decimals: 3) == "null")
        #expect(JSONText.quoted("a\"b\\c\n\u{01}é") == #""a\"b\\c\n\u0001é""#)
    }

    @Test func goldenLines() {
        let full = Location(timestamp: 1639485931, targetID: "self", x: 4.2104, y: 7.9, z: 1.25, floor: 0,
            horizontalAccuracyMeters: 1.8, verticalAccuracyMeters: 0.9, speedMetersPerSecond: 0.6, courseDegrees: 92,
            lastKnown: false, anchorCount: 5, latitude: 52.22977, longitude: 21.01226)
        #expect(LocationWriter.line(full) == """
            {"t": 1639485931.000, "target": "self", "x": 4.210, "y": 7.900, "z": 1.250, "floor": 0, \
            "horizontalAccuracy": 1.800, "verticalAccuracy": 0.900, "speed": 0.600, "course": 92.0, \
            "lastKnown": false, "anchors": 5, "lat": 52.2297700, "lon": 21.0122600}
            """)
        let minimal = Location(timestamp: 2.5, targetID: "tag-1", x: -1, y: 0, horizontalAccuracyMeters: 12.3456,
            lastKnown: true, anchorCount: 0)
        #expect(LocationWriter.line(minimal) == """
            {"t": 2.500, "target": "tag-1", "x": -1.000, "y": 0.000, "horizontalAccuracy": 12.346, \
            "lastKnown": true, "anchors": 0}
            """)
    }

    @Test func roundTripThroughTheReader() throws {
        var rng = Xoshiro256StarStar(seed: 7)
        var fixes: [Location] = []
        for k in 0..<300 {
            let u = { (scale: Double) in (RandomDraws.unit(using: &rng) - 0.5) * scale }
            var fix = Location(timestamp: 1.6e9 + Double(k) * 0.25,
                targetID: k % 3 == 0 ? "self" : "tag \"\(k % 2)\"", x: u(40), y: u(40),
                horizontalAccuracyMeters: abs(u(10)), anchorCount: k % 7)
            if k % 2 == 0 { fix.z = u(3); fix.verticalAccuracyMeters = abs(u(2)) }
            if k % 5 == 0 { fix.floor = k % 3 - 1; fix.speedMetersPerSecond = abs(u(3)); fix.courseDegrees = abs(u(720)) }
            if k % 4 == 0 { fix.latitude = u(180); fix.longitude = u(360); fix.lastKnown = true }
            if k % 6 == 0 { fix.headingDegrees = abs(u(720)); fix.source = k % 12 == 0 ? .gnss : .beacons }
            fixes.append(fix)
        }
        let text = LocationWriter.text(fixes)
        #expect(LocationWriter.text(fixes) == text)
        let back = try LocationReader.read(source: MemoryChunkSource(Array(text.utf8)), name: "loc.jsonl")
        #expect(back.count == fixes.count)
        // Rewriting what was read gives the same bytes: the format is a fixed point after one rounding.
        #expect(LocationWriter.text(back) == text)
        for (a, b) in zip(fixes, back) {
            #expect(abs(a.x - b.x) <= 0.0005 + 1e-12 && abs(a.timestamp - b.timestamp) <= 0.0005 + 1e-6)
            #expect(a.targetID == b.targetID && a.floor == b.floor && a.lastKnown == b.lastKnown && a.anchorCount == b.anchorCount)
            #expect((a.latitude == nil) == (b.latitude == nil) && (a.courseDegrees == nil) == (b.courseDegrees == nil))
            #expect(a.source == b.source && (a.headingDegrees == nil) == (b.headingDegrees == nil))
        }
    }

    @Test func headingAndSourceAreTheFormatsFields() throws {
        let outdoors = Location(timestamp: 10, x: -3, y: -40, horizontalAccuracyMeters: 2.9, anchorCount: 0,
            latitude: 52.2293, longitude: 21.0121, headingDegrees: 274.07, source: .gnss)
        let line = LocationWriter.line(outdoors)
        #expect(line == """
            {"t": 10.000, "target": "self", "x": -3.000, "y": -40.000, "horizontalAccuracy": 2.900, \
            "lastKnown": false, "anchors": 0, "lat": 52.2293000, "lon": 21.0121000, "heading": 274.1, "source": "gnss"}
            """)
        let back = try LocationReader.read(source: MemoryChunkSource(Array(line.utf8)), name: "loc.jsonl")
        #expect(back.first?.source == .gnss && back.first?.headingDegrees == 274.1)
        let bad = #"{"t": 1, "x": 0, "y": 0, "horizontalAccuracy": 1, "source": "wifi"}"#
        #expect(throws: JSONLinesError(file: "loc.jsonl", line: 1,
                                       message: "source: expected one of beacons, gnss, got \"wifi\" (column 61)")) {
            try LocationReader.read(source: MemoryChunkSource(Array(bad.utf8)), name: "loc.jsonl")
        }
    }

    @Test func presenceAndSilenceAreTheFormatsFields() throws {
        let asleep = Location(timestamp: 10, targetID: "alice-phone", x: 2, y: 3, horizontalAccuracyMeters: 1.5,
                              lastKnown: true, anchorCount: 0, room: "bedroom", roomProbability: 0.95,
                              presence: .home, silentForSeconds: 754.4)
        let line = LocationWriter.line(asleep)
        #expect(line == """
            {"t": 10.000, "target": "alice-phone", "x": 2.000, "y": 3.000, "horizontalAccuracy": 1.500, \
            "lastKnown": true, "anchors": 0, "room": "bedroom", "roomProbability": 0.950, "presence": "home", "silentFor": 754.4}
            """)
        let back = try LocationReader.read(source: MemoryChunkSource(Array(line.utf8)), name: "loc.jsonl")
        #expect(back.first?.presence == .home && back.first?.silentForSeconds == 754.4)
        let away = #"{"t": 1, "x": 0, "y": 0, "horizontalAccuracy": 1, "presence": "not_home", "silentFor": 130}"#
        #expect(try LocationReader.read(source: MemoryChunkSource(Array(away.utf8)), name: "l").first?.presence == .notHome)
        let bad = #"{"t": 1, "x": 0, "y": 0, "horizontalAccuracy": 1, "presence": "away"}"#
        #expect(throws: JSONLinesError(file: "loc.jsonl", line: 1,
                                       message: "presence: expected home or not_home, got \"away\" (column 63)")) {
            try LocationReader.read(source: MemoryChunkSource(Array(bad.utf8)), name: "loc.jsonl")
        }
    }

    /// A campus view's fix names its site, last; one MQTT message parses alone, and a bad one names its field.
    @Test func theSiteIsAFieldAndOneMessageParsesAlone() throws {
        var fix = Location(timestamp: 5, targetID: "keys", x: 1, y: 2, horizontalAccuracyMeters: 2, anchorCount: 3)
        fix.site = "west-wing"
        let line = LocationWriter.line(fix)
        #expect(line.hasSuffix(#""anchors": 3, "site": "west-wing"}"#))
        #expect(try LocationReader.parse(Array(line.utf8)) == fix)
        #expect(throws: JSONSyntaxError(offset: nil, message: "horizontalAccuracy: missing")) {
            try LocationReader.parse(Array(#"{"t": 1, "x": 0, "y": 0}"#.utf8))
        }
        #expect(throws: (any Error).self) { try LocationReader.parse(Array(#"{"t": 1} x"#.utf8)) }
    }

    @Test func readerErrorsNameFileAndLine() {
        let text = #"{"t": 1, "x": 0, "y": 0, "horizontalAccuracy": 1}"# + "\n" + #"{"t": 2, "x": 0, "y": 0}"#
        #expect(throws: JSONLinesError(file: "loc.jsonl", line: 2, message: "horizontalAccuracy: missing")) {
            try LocationReader.read(source: MemoryChunkSource(Array(text.utf8)), name: "loc.jsonl")
        }
        let bad = #"{"t": 1, "x": 0, "y": 0, "horizontalAccuracy": 1, "anchors": 2.5}"#
        #expect(throws: JSONLinesError(file: "loc.jsonl", line: 1, message: "anchors: expected an integer (column 62)")) {
            try LocationReader.read(source: MemoryChunkSource(Array(bad.utf8)), name: "loc.jsonl")
        }
    }

    @Test func truthReaderReadsRealSlicesAndRejectsBadLines() throws {
        let boun = try TruthReader.read(path: Fixtures.path("boun-straight_01-head200.truth.jsonl"))
        #expect(boun.count == 200)
        #expect(boun[0] == TruthPoint(t: 1581249601.409, target: "e78f135624ce", x: 18.031, y: 8.465, z: 1.816))
        let uji = try TruthReader.read(path: Fixtures.path("uji-geo-tx04-head12.truth.jsonl"))
        #expect(uji[1] == TruthPoint(t: 100.204, target: "fp-1", x: 16.091, y: 2.795, z: 0))
        let text = #"{"t": 1, "x": 0, "y": 0}"# + "\n\n" + #"{"t": 2, "x": NaN, "y": 0}"#
        #expect(throws: JSONLinesError(file: "truth.jsonl", line: 3, message: "x: expected a finite number (column 15)")) {
            try TruthReader.read(source: MemoryChunkSource(Array(text.utf8)), name: "truth.jsonl")
        }
        #expect(throws: JSONLinesError(file: "missing.jsonl", line: nil, message: "cannot open /nonexistent/missing.jsonl: No such file or directory")) {
            try TruthReader.read(path: "/nonexistent/missing.jsonl")
        }
    }
}
