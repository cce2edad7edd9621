import BlueDotCore
import Foundation
import LocationDisplay
import Testing

@Suite("SimulatedLocationDataSource")
struct SimulatedLocationDataSourceTests {
    @Test("a polyline walk samples position, speed and course at the update interval")
    func polylineSamples() {
        let source = SimulatedLocationDataSource(
            polyline: [MapPoint(x: 0, y: 0), MapPoint(x: 0, y: 3), MapPoint(x: 4, y: 3)], speedMetersPerSecond: 1,
            updateIntervalSeconds: 2, clock: ManualClock())
        let planned = source.plannedLocations
        #expect(planned.map(\.timestamp) == [0, 2, 4, 6, 7])
        #expect(planned.map(\.x) == [0, 0, 1, 3, 4])
        #expect(planned.map(\.y) == [0, 2, 3, 3, 3])
        #expect(planned.map(\.courseDegrees) == [0, 0, 90, 90, 90])
        #expect(planned.allSatisfy { $0.speedMetersPerSecond == 1 })
    }

    @Test("playback follows the manual clock, loops, and nothing arrives after stop")
    func pacedLoop() async throws {
        let clock = ManualClock(start: 50)
        let source = SimulatedLocationDataSource(
            locations: [fix(1, 0), fix(2, 0)], intervalSeconds: 3, loops: true, clock: clock)
        let stream = source.locations
        try await source.start()
        var iterator = stream.makeAsyncIterator()
        var times: [Double] = []
        var xs: [Double] = []
        let first = try #require(await iterator.next())
        times.append(first.timestamp)
        xs.append(first.x)
        for _ in 0..<3 {
            await clock.waitForSleepers()
            clock.advance(by: 3)
            let next = try #require(await iterator.next())
            times.append(next.timestamp)
            xs.append(next.x)
        }
        #expect(times == [50, 53, 56, 59])
        #expect(xs == [1, 2, 1, 2])
        await clock.waitForSleepers()
        await source.stop()
        #expect(clock.sleeperCount == 0)
        clock.advance(by: 100)
        #expect(source.deliveredCount == 4)
        #expect(source.status == .stopped)
    }

    @Test("a geographic origin adds latitude and longitude")
    func geographic() {
        let origin = GeographicOrigin(latitude: 52, longitude: 21)
        let source = SimulatedLocationDataSource(
            polyline: [MapPoint(x: 0, y: 0), MapPoint(x: 0, y: 10)], speedMetersPerSecond: 5,
            geographicOrigin: origin, clock: ManualClock())
        let last = try! #require(source.plannedLocations.last)
        // 10 m north at 52°: 10 / 111,266.3 m per degree of latitude (WGS84, the survey tables' series).
        let phi = 52 * Double.pi / 180
        let metersPerDegree = 111_132.954 - 559.822 * cos(2 * phi) + 1.175 * cos(4 * phi)
        #expect(abs((last.latitude ?? 0) - (52 + 10 / metersPerDegree)) < 1e-9)
    }
}
