import BlueDotCore
import Formats
import Foundation
import GNSS
import LocationDisplay
import Testing

/// The path of a GPX fixture (kept beside the reader's tests, `Tests/PositioningTests/Fixtures/GPX`; found from the
/// package root, as Tools/tsan builds this file through a link).
private func gpxFixture(_ name: String) -> String {
    packageRoot.appending(path: "Tests/PositioningTests/Fixtures/GPX/\(name)").path
}

/// `GPXLocationDataSource`: a GPX file's first track or route played on a test clock.
@Suite("GPX playback")
struct GPXLocationDataSourceTests {
    @Test("OsmAnd route with a prefix and no times is paced at the fallback speed")
    func routeWithoutTimes() async throws {
        let clock = ManualClock(start: 0)
        let source = GPXLocationDataSource(path: gpxFixture("osmand-route-no-times.gpx"),
                                           fallbackSpeedMetersPerSecond: 2, clock: clock)
        let stream = source.locations
        try await source.start()
        var iterator = stream.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.x == 0 && first.y == 0 && first.latitude == 52.2297)
        await clock.waitForSleepers()
        // 0.00009° of latitude at 52.23° is 10.014 m on the WGS84 ellipsoid (111,132.954 − 559.822 cos 2φ +
        // 1.175 cos 4φ m per degree): 5.007 s at 2 m/s.
        clock.advance(by: 5.0)
        #expect(source.deliveredCount == 1)
        clock.advance(by: 0.02)
        let second = try #require(await iterator.next())
        #expect(abs(second.y - 10.014) < 0.01)
        #expect(abs(second.timestamp - 5.0072) < 1e-3)
        #expect(second.speedMetersPerSecond.map { abs($0 - 2) < 1e-9 } == true)
        #expect(second.courseDegrees.map { abs($0) < 1e-6 } == true)
        await source.stop()
    }

    @Test("timestamps pace playback; course and speed come from consecutive points")
    func timestampPacing() async throws {
        let clock = ManualClock(start: 1000)
        let source = GPXLocationDataSource(path: gpxFixture("garmin-edge-walk.gpx"), clock: clock)
        let stream = source.locations
        try await source.start()
        var iterator = stream.makeAsyncIterator()
        var seen: [Location] = []
        seen.append(try #require(await iterator.next()))
        for step in [5.0, 5.0, 10.0] {
            await clock.waitForSleepers()
            clock.advance(by: step)
            seen.append(try #require(await iterator.next()))
        }
        #expect(seen.map(\.timestamp) == [1000, 1005, 1010, 1020])
        // 0.000147° of longitude and 0.00018° of latitude at 52.23° on the WGS84 ellipsoid (the survey tables' series:
        // 111,412.84 cos φ − 93.5 cos 3φ m per degree of longitude): 10.044 m east, 20.029 m north.
        #expect(abs(seen[3].x - 10.044) < 0.02 && abs(seen[3].y - 20.029) < 0.02)
        #expect(seen[3].courseDegrees.map { abs($0 - 90) < 0.01 } == true)
        #expect(seen[1].speedMetersPerSecond.map { abs($0 - 2.003) < 0.002 } == true)
        #expect(seen[0].z == 101.4)
        await source.stop()
    }

    @Test("a point without a time is paced at the fallback speed; segment starts carry no speed")
    func missingTimesAndSegments() async throws {
        let source = GPXLocationDataSource(path: gpxFixture("phone-logger-missing-times.gpx"),
                                           fallbackSpeedMetersPerSecond: 1)
        let document = try GPXParser.parse(path: gpxFixture("phone-logger-missing-times.gpx"))
        let (points, starts) = try #require(document.firstPath())
        let located = source.pacedLocations(points: points, segmentStarts: starts)
        // 0.0000898° of latitude at the equator ≈ 9.930 m (WGS84: 110,574.3 m per degree); both gaps touch the
        // untimed point, so both take 9.930 s at 1 m/s.
        #expect(abs(located[1].timestamp - 9.930) < 0.01)
        #expect(abs(located[2].timestamp - 19.859) < 0.02)

        let strava = try GPXParser.parse(path: gpxFixture("strava-two-segments.gpx"))
        let path = try #require(strava.firstPath())
        let walk = source.pacedLocations(points: path.points, segmentStarts: path.segmentStarts)
        #expect(walk[1].speedMetersPerSecond != nil)
        #expect(walk[2].speedMetersPerSecond == nil)
        #expect(abs(walk[2].timestamp - 60) < 1e-3)
    }

    @Test("broken files fail the start, naming the file, the line and column, and the problem", arguments: [
        ("broken-unclosed-trkseg.gpx", ":7:5: malformed XML: mismatched tag"),
        ("broken-bad-latitude.gpx", ":6:7: <trkpt> lat \"52,2298\" is not a number"),
        ("broken-waypoints-only.gpx", ": no track or route with points"),
        ("broken-bad-time.gpx", ":5:65: <time> \"yesterday at noon\" is not an ISO 8601 time"),
        ("broken-not-gpx.gpx", ":2:1: not a GPX file: the root element is <kml>"),
        ("does-not-exist.gpx", ": cannot read the file: No such file or directory"),
    ])
    func brokenFiles(name: String, expected: String) async throws {
        let path = gpxFixture(name)
        let source = GPXLocationDataSource(path: path, clock: ManualClock())
        let error = await #expect(throws: GPXError.self) { try await source.start() }
        #expect(source.status == .failedToStart)
        let message = try #require(error).description
        #expect(message == path + expected)
    }
}
