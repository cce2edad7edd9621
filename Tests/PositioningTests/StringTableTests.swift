import BlueDotCore
import Formats
import JSON
import Testing

@Suite struct StringTableTests {
    /// The table's string for `text`'s bytes.
    func look(_ table: inout StringTable, _ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer { table.string($0) }
    }

    /// Whatever the table keeps or evicts, each text comes back as itself: thousands of ids through a small table
    /// (every slot contested), repeats, texts that differ only in the middle, empty and long texts.
    @Test func everyTextComesBackAsItselfWhateverTheTableKeeps() {
        var ids = (0..<3000).map { "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:\($0)" }
        ids += (0..<1000).map { "rx-\($0)" }
        ids += ["", "a", "ab-cd-ef", "ibeacon:f7826da6-4fa2-XXXX-8024-bc5b71e0893e:1:7",
                String(repeating: "long-id-", count: 40)]
        for slots in [0, 16, 8192] {
            var table = StringTable(slotCount: slots)
            var rng = SplitMix64(seed: 5)
            for _ in 0..<20_000 {
                let id = ids[Int(rng.next() % UInt64(ids.count))]
                #expect(look(&table, Array(id.utf8)) == id)
            }
        }
    }

    /// Bytes that are not UTF-8 are repaired as `String(decoding:as:)` repairs them, kept or not.
    @Test func invalidUTF8IsRepairedLikeTheStandardLibrary() {
        var table = StringTable()
        for bytes: [UInt8] in [[0x72, 0x78, 0xFF, 0x31], [0xC3], [0xE2, 0x82], Array("Küche".utf8)] {
            let expected = String(decoding: bytes, as: UTF8.self)
            #expect(look(&table, bytes) == expected)
            #expect(look(&table, bytes) == expected, "the kept copy")
        }
    }

    /// Observation lines read through the table: 1,000 anchors and 500 targets in every combination the lines
    /// name, each line's ids exactly as written.
    @Test func observationReaderKeepsEveryIDWhileSharingStrings() throws {
        var text = ""
        var expected: [(String, String)] = []
        for k in 0..<6000 {
            let anchor = "rx-\(k * 7 % 1000)", target = "tag:\(k * 13 % 500)"
            text += #"{"t": \#(Double(k) * 0.01), "anchor": "\#(anchor)", "target": "\#(target)", "rssi": -60}"# + "\n"
            expected.append((anchor, target))
        }
        var reader = ObservationReader(source: MemoryChunkSource(Array(text.utf8)), name: "ids.jsonl")
        let lines = try reader.readAll()
        #expect(lines.count == expected.count)
        for (line, (anchor, target)) in zip(lines, expected) {
            #expect(line.observation.anchor == anchor && line.observation.target == target)
        }
    }
}
