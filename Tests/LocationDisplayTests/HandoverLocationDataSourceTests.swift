import BlueDotCore
import LocationDisplay
import Testing

/// A source the test feeds by hand.
final class FedSource: LocationDataSource, @unchecked Sendable {
    /// Delivers a location.
    func feed(_ location: Location) { didUpdate(location) }
    func feed(heading: Double) { didUpdateHeading(heading) }
}

/// `HandoverLocationDataSource`: what goes out, stamped with its source, placed on the earth, floors and headings.
@Suite("Hand-over source")
struct HandoverLocationDataSourceTests {
    static let origin = GeographicOrigin(latitude: 52.2297, longitude: 21.0122, bearingDegrees: 0)

    @Test func deliversTheChosenSourceStampedAndPlaced() async throws {
        let clock = ManualClock(start: 0)
        let beacons = FedSource(), gnss = FedSource()
        let source = HandoverLocationDataSource(beacons: beacons, gnss: gnss, origin: Self.origin, clock: clock)
        let out = source.locations, headings = source.headings
        try await source.start()
        #expect(beacons.status == .started && gnss.status == .started)
        // Outdoors: GNSS (its own lat/lon kept, no floor), a heading from gpsd rides along.
        gnss.feed(heading: 91)
        #expect(await collect(headings, count: 1) == [91])
        var outside = Location(timestamp: 0, x: 2, y: -30, floor: 0, horizontalAccuracyMeters: 3, latitude: 52.2294,
                               longitude: 21.01223)
        outside.source = .gnss
        gnss.feed(outside)
        await Self.settle(source, received: 1)
        // A weak beacon fix (2 anchors) outside does not count and goes nowhere.
        beacons.feed(Location(timestamp: 0, x: 2, y: -28, floor: 0, horizontalAccuracyMeters: 9, anchorCount: 2))
        await Self.settle(source, received: 2)
        // At the door: beacons clearly better for 3 s take over, delivered at once with their floor.
        for t in 1...4 {
            clock.advance(by: 1)
            gnss.feed(Location(timestamp: Double(t), x: 2, y: -1, horizontalAccuracyMeters: 4, latitude: 52.22969,
                               longitude: 21.0122))
            beacons.feed(Location(timestamp: Double(t), x: 2, y: 0.5, floor: 0, horizontalAccuracyMeters: 1.5,
                                  anchorCount: 6))
            await Self.settle(source, received: 2 + 2 * t)
        }
        let got = await collect(out, count: 5)
        #expect(got.map(\.source) == [.gnss, .gnss, .gnss, .gnss, .beacons])
        #expect(got[0].latitude == 52.2294 && got[0].floor == nil && got[0].headingDegrees == 91)
        let (lat, lon) = Self.origin.geographic(x: 2, y: 0.5)
        #expect(got[4].floor == 0 && got[4].latitude == lat && got[4].longitude == lon && got[4].anchorCount == 6)
        #expect(source.currentSource == .beacons && source.handoverCount == 1)
        await source.stop()
        #expect(beacons.status == .stopped && gnss.status == .stopped)
    }

    /// Waits until the source has taken `received` fixes from its sources (they come through streams).
    static func settle(_ source: HandoverLocationDataSource, received: Int) async {
        for _ in 0..<10_000 where source.receivedCount < received { await Task.yield() }
    }

    @Test func gnssAloneSaysGNSSEvenWhenGrey() async throws {
        let gnss = FedSource()
        let source = HandoverLocationDataSource(beacons: nil, gnss: gnss, origin: nil, clock: ManualClock())
        let out = source.locations
        try await source.start()
        gnss.feed(Location(timestamp: 0, x: 0, y: 0, horizontalAccuracyMeters: 5, lastKnown: true))
        gnss.feed(Location(timestamp: 1, x: 1, y: 0, horizontalAccuracyMeters: 5))
        let got = await collect(out, count: 2)
        #expect(got.map(\.source) == [.gnss, .gnss] && got.map(\.lastKnown) == [true, false])
        await source.stop()
    }
}
