import Foundation
import Testing
@testable import Positioning

@Suite struct ObservationReaderTests {
    /// Reads all lines of `text` from memory with the given options.
    func read(_ text: String, _ options: ObservationReader.Options = .init()) throws -> ([ObservationLine], ReadReport) {
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
}
