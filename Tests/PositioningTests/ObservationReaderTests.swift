import BlueDotCore
import Formats
import Foundation
import JSON
import Testing
@testable import Positioning

/// Serves bytes in chunks of seeded random sizes (1 ... maxChunk), whatever size the reader asks for.
struct RandomSplitSource: ByteChunkSource {
    let bytes: [UInt8]
    var offset = 0
    var rng: SplitMix64
    let maxChunk: Int

    mutating func read(into buffer: inout [UInt8], maxCount: Int) throws(JSONLinesError) -> Int {
        let n = min(Int(rng.next() % UInt64(maxChunk)) + 1, maxCount, bytes.count - offset)
        buffer.append(contentsOf: bytes[offset..<offset + n])
        offset += n
        return n
    }
}

@Suite struct ObservationReaderTests {
    /// Reads all lines of `text` from memory with the given options.
    func read(_ text: String, _ options: ObservationReader.Options = .init()) throws(JSONLinesError)
        -> ([ObservationLine], ReadReport) {
        var reader = ObservationReader(source: MemoryChunkSource(Array(text.utf8)), name: "test.jsonl",
                                       options: options)
        let lines = try reader.readAll()
        return (lines, reader.report)
    }

    @Test func readsRealBOUNSliceInOrder() throws {
        let venue = try VenueLoader.load(path: Fixtures.path("boun-tetam.venue.json"))
        var reader = try ObservationReader(
            path: Fixtures.path("boun-straight_01-head200.observations.jsonl"),
            options: .init(knownAnchors: Set(venue.anchors.map(\.id))))
        let lines = try reader.readAll()
        #expect(lines.count == 200)
        #expect(reader.report.isClean)
        #expect(reader.report.accepted == 200)
        let first = try #require(lines.first).observation
        #expect(first == Observation(t: 1581249601.409, anchor: "b827eb4521b4", target: "e78f135624ce", rssiDBm: -87))
        #expect(zip(lines, lines.dropFirst()).allSatisfy { $0.observation.t <= $1.observation.t })
    }

    @Test func readsRealWUTAndUJISlices() throws {
        var wut = try ObservationReader(path: Fixtures.path("wut-calibration-head200.observations.jsonl"))
        let w = try wut.readAll()
        #expect(w.count == 200 && wut.report.isClean)
        #expect(w[1].observation == Observation(t: 1627997452.227, anchor: "a2", target: "tag-1", rssiDBm: -56.5))
        var uji = try ObservationReader(path: Fixtures.path("uji-geo-tx04-head100.observations.jsonl"))
        let u = try uji.readAll()
        #expect(u.count == 100 && uji.report.isClean)
        #expect(u[0].gateway == "phone-a5" && u[0].observation.target == "fp-0")
    }

    @Test func surveyLinesCarryTruth() throws {
        var reader = try ObservationReader(path: Fixtures.path("boun-straight_01-head200.survey.jsonl"))
        let lines = try reader.readAll()
        #expect(lines.count == 200)
        #expect(lines[0].truth == TruthPoint(t: 1581249601.409, target: "e78f135624ce", x: 18.031, y: 8.465, z: 1.816))
        #expect(lines.allSatisfy { $0.truth != nil })
    }

    @Test func parsesStringsEscapesDefaultsAndUnknownKeys() throws {
        let text = #"""
            {"t": 1.5, "anchor": "rx\"3\\\u00e9\ud83d\ude00", "rssi": -71.25, "extra": {"a": [1, "}", {"b": null}]}, "flag": true}
            {"anchor": "b", "rssi": -6e1, "t": 2, "target": null, "txPower": -12, "address": "mac:aa:bb:cc:dd:ee:ff"}
            """#
        let (lines, report) = try read(text)
        #expect(report.isClean && lines.count == 2)
        #expect(lines[0].observation == Observation(t: 1.5, anchor: "rx\"3\\é😀", rssiDBm: -71.25))
        #expect(lines[1].observation == Observation(t: 2, anchor: "b", target: "self", rssiDBm: -60, txPowerDBm: -12))
        #expect(lines[1].address == "mac:aa:bb:cc:dd:ee:ff")
    }

    /// Strings, keys and ids are scanned eight bytes at a time: an escape, a raw control character, a quote or a
    /// non-ASCII character at every offset of the first and last word, in ids and in keys, reads as Foundation's
    /// JSON parser reads it (or is refused as it refuses it), and numbers of every length as `Double(_:)` reads them.
    @Test func specialBytesAtEveryOffsetOfAWordAndNumbersOfEveryLength() throws {
        let specials = [#"\""#, #"\\"#, #"\u0041"#, "é", "\u{1F600}", "\t", "\u{01}"]
        for special in specials {
            for offset in 0...17 {
                let id = String(repeating: "a", count: offset) + special + String(repeating: "b", count: 17 - offset)
                let key = String(repeating: "k", count: offset) + special
                let line = #"{"t": 1.5, "anchor": ""# + id + #"", ""# + key + #"": 3, "rssi": -70}"#
                let reference = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
                let (lines, report) = try read(line)
                if let reference {
                    #expect(report.isClean && lines.count == 1, "\(line)")
                    #expect(lines.first?.observation.anchor == reference["anchor"] as? String, "\(line)")
                } else {
                    #expect(report.malformed == 1 && lines.isEmpty, "\(line)")
                }
            }
        }
        var rng = SplitMix64(seed: 5)
        for k in 0..<2_000 {
            let integer = String((rng.next() % 10_000_000_000) >> (rng.next() % 34))
            let fraction = String(String(rng.next()).prefix(k % 22))
            let text = (k % 3 == 0 ? "-" : "") + integer + (fraction.isEmpty ? "" : "." + fraction)
                + (k % 7 == 0 ? "e\(Int(rng.next() % 40) - 20)" : "")
            let (lines, _) = try read(#"{"t": 1, "anchor": "a", "rssi": "# + text + "}")
            #expect(lines.first?.observation.rssiDBm == Double(text), "\(text)")
        }
    }

    @Test func countsMalformedLinesWithLineNumbers() throws {
        let text = """
            {"t": 1.0, "anchor": "a", "rssi": -60}
            {"t": 1.1, "anchor": "a", "rssi": "-60"}
            not json
            {"t": 1.2, "anchor": "a"}

            {"t": 1.3, "anchor": "a", "rssi": -61} trailing
            {"t": 1.4, "anchor": "a", "rssi": -62, "truth": {"y": 2}}
            {"t": 1.5, "anchor": "a", "rssi": 01}
            {"t": 1.6, "anchor": "a", "rssi": -63}
            """
        let (lines, report) = try read(text)
        #expect(lines.map(\.observation.t) == [1.0, 1.6])
        #expect(report.malformed == 6 && report.blank == 1 && report.lines == 9 && report.accepted == 2)
        #expect(report.samples.map(\.line) == [2, 3, 4, 6, 7])
        #expect(report.samples[0].message == "rssi: expected a number (column 35)")
        #expect(report.samples[2].message == "rssi: missing")
    }

    @Test func countsNonFiniteAndUnknownAnchors() throws {
        let text = """
            {"t": 1.0, "anchor": "a", "rssi": NaN}
            {"t": 1.1, "anchor": "zz", "rssi": -60}
            {"t": 1.2, "anchor": "a", "rssi": -1e999}
            {"t": 1.3, "anchor": "zz", "rssi": -60}
            {"t": 1.4, "anchor": "b", "rssi": -60, "truth": {"x": Infinity, "y": 0}}
            {"t": 1.5, "anchor": "b", "rssi": -60}
            """
        let (lines, report) = try read(text, .init(knownAnchors: ["a", "b"]))
        #expect(lines.map(\.observation.t) == [1.5])
        #expect(report.nonFinite == 3 && report.unknownAnchor == 2)
        #expect(report.unknownAnchorIDs == ["zz": 2])
        #expect(report.description == """
            test.jsonl: 6 lines, 1 accepted, 5 dropped (3 non-finite, 2 unknown anchor)
              unknown anchors: zz x2
              line 1: non-finite value
              line 2: unknown anchor "zz"
              line 3: non-finite value
              line 4: unknown anchor "zz"
              line 5: non-finite value
            """)
    }

    @Test func reordersWithinToleranceAndDropsBeyond() throws {
        // Times in file order; tolerance 0.5 s.
        let times = [10.0, 10.4, 10.1, 10.45, 11.0, 10.49, 10.51, 12.0, 11.5, 11.49]
        let text = times.enumerated().map { #"{"t": \#($1), "anchor": "a", "rssi": -\#(60 + $0)}"# }
            .joined(separator: "\n")
        let (lines, report) = try read(text)
        // 10.49 is older than 11.0 - 0.5 = 10.5: late. 10.51 is within. 11.49 is older than 12.0 - 0.5: late.
        #expect(lines.map(\.observation.t) == [10.0, 10.1, 10.4, 10.45, 10.51, 11.0, 11.5, 12.0])
        #expect(report.late == 2 && report.reordered == 3)
        #expect(report.samples.map(\.line) == [6, 10])
        // Equal times keep file order.
        let (ties, _) = try read(#"""
            {"t": 5, "anchor": "a", "rssi": -1}
            {"t": 5, "anchor": "b", "rssi": -2}
            {"t": 4.9, "anchor": "c", "rssi": -3}
            {"t": 5, "anchor": "d", "rssi": -4}
            """#)
        #expect(ties.map(\.observation.anchor) == ["c", "a", "b", "d"])
    }

    @Test func zeroToleranceDropsAnyDisorder() throws {
        let (lines, report) = try read(#"""
            {"t": 2, "anchor": "a", "rssi": -1}
            {"t": 1.999, "anchor": "a", "rssi": -2}
            {"t": 2, "anchor": "a", "rssi": -3}
            """#, .init(toleranceSeconds: 0))
        #expect(lines.map(\.observation.rssiDBm) == [-1, -3])
        #expect(report.late == 1)
    }

    @Test func strictModeNamesFileAndLine() throws {
        let text = """
            {"t": 1.0, "anchor": "a", "rssi": -60}

            {"t": 1.1, "anchor": "a", "rssi": -60
            """
        #expect(throws: JSONLinesError(file: "test.jsonl", line: 3, message: "unterminated object (column 38)")) {
            try read(text, .init(strict: true))
        }
        do throws(JSONLinesError) {
            _ = try read(#"{"t": 1, "anchor": "a", "rssi": -1}"# + "\n" + #"{"t": 0.2, "anchor": "a", "rssi": -1}"#,
                         .init(strict: true))
            Issue.record("expected a late-line error")
        } catch {
            #expect(error.description == "test.jsonl:2: t 0.2 is more than 0.5 s older than 1.0")
        }
        #expect(throws: JSONLinesError(file: "test.jsonl", line: 1, message: "unknown anchor \"q\"")) {
            try read(#"{"t": 1, "anchor": "q", "rssi": -1}"#, .init(strict: true, knownAnchors: ["a"]))
        }
    }

    @Test func sameOutputWhateverTheChunking() throws {
        var bytes = Fixtures.bytes("boun-straight_01-head200.survey.jsonl")
        // Add disorder, CRLF, a blank line and a bad line so that every path crosses chunk boundaries.
        bytes += Array("{\"t\": 1581249700.0, \"anchor\": \"x\", \"rssi\": -70}\r\n\n{bad}\r\n".utf8)
        bytes += Array("{\"t\": 1581249699.8, \"anchor\": \"y\", \"rssi\": -71}".utf8)
        func run(_ source: any ByteChunkSource, chunk: Int) throws -> ([ObservationLine], ReadReport) {
            var reader = ObservationReader(source: source, name: "s", options: .init(chunkSize: chunk))
            return (try reader.readAll(), reader.report)
        }
        let (reference, referenceReport) = try run(MemoryChunkSource(bytes), chunk: 1 << 16)
        #expect(reference.count == 202 && referenceReport.malformed == 1 && referenceReport.blank == 1)
        #expect(reference.last?.observation.anchor == "x" && referenceReport.reordered == 1)
        for chunk in [1, 2, 3, 7, 64, 129, 4096] {
            let (lines, report) = try run(MemoryChunkSource(bytes), chunk: chunk)
            #expect(lines == reference && report == referenceReport, "chunk size \(chunk)")
        }
        for seed in 0..<5 as Range<UInt64> {
            let source = RandomSplitSource(bytes: bytes, rng: SplitMix64(seed: seed), maxChunk: 300)
            let (lines, report) = try run(source, chunk: 1 << 16)
            #expect(lines == reference && report == referenceReport, "seed \(seed)")
        }
    }

    @Test func overlongLineIsMalformedNotFatal() throws {
        let long = "{\"t\": 1, \"anchor\": \"" + String(repeating: "x", count: (1 << 20) + 10) + "\", \"rssi\": -1}"
        let (lines, report) = try read(long + "\n" + #"{"t": 2, "anchor": "a", "rssi": -2}"#,
                                       .init(chunkSize: 4096))
        #expect(lines.map(\.observation.t) == [2])
        #expect(report.malformed == 1 && report.samples.first?.message == "line longer than 1 MiB")
    }
}
