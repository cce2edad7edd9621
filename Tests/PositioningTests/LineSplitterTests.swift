import Formats
import JSON
import Testing

/// `LineSplitter`, the one line framing: pulled from a chunk source and pushed in chunks, the same lines.
@Suite struct LineSplitterTests {
    static let text = "first\r\nsecond\n\n" + String(repeating: "x", count: 40) + "\nlast"

    static func lines(_ splitter: LineSplitter, _ line: LineSplitter.Line) -> String {
        line.tooLong ? "<too long>" : String(decoding: splitter.buffer[line.range], as: UTF8.self)
    }

    @Test func pulledFromASource() throws {
        var splitter = LineSplitter(source: MemoryChunkSource(Array(Self.text.utf8)), chunkSize: 3, maximumLineBytes: 16)
        var got: [String] = [], numbers: [Int] = []
        while let line = try splitter.next() {
            got.append(Self.lines(splitter, line))
            numbers.append(line.number)
        }
        #expect(got == ["first", "second", "", "<too long>", "last"], "the last line counts without its newline")
        #expect(numbers == [1, 2, 3, 4, 5])
    }

    @Test func pushedInChunks() {
        var splitter = LineSplitter(maximumLineBytes: 16)
        var got: [String] = []
        let bytes = Array(Self.text.utf8)
        for start in stride(from: 0, to: bytes.count, by: 5) {
            splitter.append(Array(bytes[start..<min(start + 5, bytes.count)]))
            while let line = splitter.nextComplete() { got.append(Self.lines(splitter, line)) }
        }
        #expect(got == ["first", "second", "", "<too long>"], "a stream's unfinished last line waits for its newline")
        splitter.append(Array("\n".utf8))
        #expect(splitter.nextComplete().map { Self.lines(splitter, $0) } == "last")
        #expect(splitter.nextComplete()?.number == nil)
    }
}
