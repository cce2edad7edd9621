import BlueDotCore
import GNSS
import LocationBus
import Testing

/// A producer the test feeds by hand: it runs until stopped, and says what heading it has.
final class FedProducer: LocationSource, LocationProducer, HeadingSource, @unchecked Sendable {
    // @unchecked: `state` guards the mutable state.
    private let state = LockedValue<(heading: Double?, stopped: Bool, waiter: CheckedContinuation<Void, Never>?)>(
        (nil, false, nil))

    init(id: String) {
        super.init(id: id, clock: ManualClock())
    }

    /// Delivers a location of `self`.
    func feed(_ location: Location) { update([location]) }
    /// Sets the heading it reports.
    func feed(heading: Double) { state.withLock { $0.heading = heading } }

    func heading(at now: Double) -> Double? { state.value.heading }

    func run() async throws {
        setStatus(.available)
        await withCheckedContinuation { c in
            let stopped = state.withLock { s in
                if !s.stopped { s.waiter = c }
                return s.stopped
            }
            if stopped { c.resume() }
        }
    }

    func stop() async {
        let waiter = state.withLock { s in
            s.stopped = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
        setStatus(.inactive)
    }
}

/// `HandoverLocationSource`: what goes out, stamped with its source, placed on the earth, floors and headings.
@Suite("Hand-over source")
struct HandoverLocationSourceTests {
    static let origin = GeographicOrigin(latitude: 52.2297, longitude: 21.0122, bearingDegrees: 0)

    @Test func deliversTheChosenSourceStampedAndPlaced() async throws {
        let clock = ManualClock(start: 0)
        let beacons = FedProducer(id: "beacons"), gnss = FedProducer(id: "gnss")
        let source = HandoverLocationSource(beacons: beacons, gnss: gnss, origin: Self.origin, clock: clock)
        let out = source.events, statuses = source.events
        let run = Task { try await source.run() }
        #expect(await collectStatuses(statuses, until: .available) == [.initialising, .available])
        while beacons.status != .available || gnss.status != .available { await Task.yield() }
        // Outdoors: GNSS (its own lat/lon kept, no floor), a heading from gpsd rides along.
        gnss.feed(heading: 91)
        var outside = Location(timestamp: 0, x: 2, y: -30, floor: 0, horizontalAccuracyMeters: 3, latitude: 52.2294,
                               longitude: 21.01223)
        outside.source = .gnss
        gnss.feed(outside)
        // A weak beacon fix (2 anchors) outside does not count and goes nowhere.
        beacons.feed(Location(timestamp: 0, x: 2, y: -28, floor: 0, horizontalAccuracyMeters: 9, anchorCount: 2))
        #expect(source.receivedCount == 2, "observers are called in place")
        // At the door: beacons clearly better for 3 s take over, delivered at once with their floor.
        for t in 1...4 {
            clock.advance(by: 1)
            gnss.feed(Location(timestamp: Double(t), x: 2, y: -1, horizontalAccuracyMeters: 4, latitude: 52.22969,
                               longitude: 21.0122))
            beacons.feed(Location(timestamp: Double(t), x: 2, y: 0.5, floor: 0, horizontalAccuracyMeters: 1.5,
                                  anchorCount: 6))
        }
        let got = await collectLocations(out, count: 5)
        #expect(got.map(\.source) == [.gnss, .gnss, .gnss, .gnss, .beacons])
        #expect(got.allSatisfy { $0.targetID == "self" })
        #expect(got[0].latitude == 52.2294 && got[0].floor == nil && got[0].headingDegrees == 91)
        let (lat, lon) = Self.origin.geographic(x: 2, y: 0.5)
        #expect(got[4].floor == 0 && got[4].latitude == lat && got[4].longitude == lon && got[4].anchorCount == 6)
        #expect(got[4].headingDegrees == 91, "gpsd's heading goes onto beacon fixes too")
        #expect(source.currentSource == .beacons && source.handoverCount == 1)
        await source.stop()
        try await run.value
        #expect(beacons.status == .inactive && gnss.status == .inactive && source.status == .inactive)
    }

    @Test func gnssAloneSaysGNSSEvenWhenGrey() async throws {
        let gnss = FedProducer(id: "gnss")
        let source = HandoverLocationSource(beacons: nil, gnss: gnss, origin: nil, clock: ManualClock())
        let out = source.events
        let run = Task { try await source.run() }
        while gnss.status != .available { await Task.yield() }
        gnss.feed(Location(timestamp: 0, x: 0, y: 0, horizontalAccuracyMeters: 5, lastKnown: true))
        gnss.feed(Location(timestamp: 1, x: 1, y: 0, horizontalAccuracyMeters: 5))
        let got = await collectLocations(out, count: 2)
        #expect(got.map(\.source) == [.gnss, .gnss] && got.map(\.lastKnown) == [true, false])
        await source.stop()
        try await run.value
    }
}
