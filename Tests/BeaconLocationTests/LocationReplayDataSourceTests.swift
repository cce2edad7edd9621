import BeaconLocation
import BlueDotCore
import Formats
import Foundation
import JSON
import LocationDisplay
import Positioning
import Testing

@Suite("LocationReplayDataSource")
struct LocationReplayDataSourceTests {
    @Test("plays a location JSONL file paced by t, keeping its timestamps, for one target")
    func playsFile() async throws {
        let path = temporaryPath("fixes.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lines = [
            #"{"t": 10.0, "target": "self", "x": 1.0, "y": 2.0, "horizontalAccuracy": 1.5, "anchors": 4}"#,
            #"{"t": 10.5, "target": "tag-1", "x": 9.0, "y": 9.0, "horizontalAccuracy": 2.0, "anchors": 3}"#,
            #"{"t": 12.0, "target": "self", "x": 3.0, "y": 2.0, "floor": 1, "horizontalAccuracy": 1.2, "#
                + #""speed": 1.0, "course": 90.0, "lastKnown": true, "anchors": 2}"#,
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let clock = ManualClock(start: 500)
        let source = LocationReplayDataSource(path: path, origin: GeographicOrigin(latitude: 50, longitude: 20),
                                              clock: clock)
        let stream = source.locations
        try await source.start()
        var iterator = stream.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.timestamp == 10 && first.x == 1 && first.anchorCount == 4)
        #expect(first.horizontalAccuracyMeters == 1.5 && !first.lastKnown)
        #expect(first.latitude != nil)
        await clock.waitForSleepers()
        clock.advance(by: 1.999)
        #expect(source.deliveredCount == 1)
        clock.advance(by: 0.001)
        let second = try #require(await iterator.next())
        #expect(second.timestamp == 12 && second.floor == 1 && second.lastKnown && second.courseDegrees == 90)
        await source.stop()
    }

    @Test("a malformed file fails the start naming the file and line")
    func malformed() async throws {
        let path = temporaryPath("bad.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #"{"t": 1.0, "target": "self", "x": "north", "y": 2.0, "horizontalAccuracy": 1, "anchors": 3}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let source = LocationReplayDataSource(path: path, clock: ManualClock())
        let error = await #expect(throws: JSONLinesError.self) { try await source.start() }
        #expect(source.status == .failedToStart)
        let message = "\(error!)"
        // Positioning's reader names the file by its last path component.
        let name = URL(filePath: path).lastPathComponent
        #expect(message.hasPrefix("\(name):1: x: expected a number"), "\(message)")
    }
}
