import BeaconLocation
import BlueDotCore
import Foundation
import Gateway
import LocationDisplay
import Logging
import Positioning
import Testing

/// The assembled spine on a manual clock: inputs → one engine → the LocationSource → the hub and the metrics as
/// observers; self mode through `BeaconLocationDataSource`, tag mode through `BeaconLocationSource`.
@Suite struct GatewaySpineTests {
    static let venue = Venue(
        name: "square", origin: Venue.Origin(latitude: 41, longitude: 29, bearingDegrees: 90),
        anchors: [
            Anchor(id: "a", x: 0, y: 0, z: 2), Anchor(id: "b", x: 10, y: 0, z: 2),
            Anchor(id: "c", x: 0, y: 10, z: 2), Anchor(id: "d", x: 10, y: 10, z: 2),
        ])

    /// Noiseless observations of `target` standing at (3, 4), 4 Hz per anchor, for `seconds`, plus one of an
    /// anchor the venue does not have at every step.
    static func standing(seconds: Double, target: String) -> [Observation] {
        var out: [Observation] = []
        var t = 0.0
        while t < seconds {
            for anchor in venue.anchors {
                let d = ((anchor.x - 3) * (anchor.x - 3) + (anchor.y - 4) * (anchor.y - 4) + 0.8 * 0.8).squareRoot()
                out.append(Observation(t: t, anchor: anchor.id, target: target,
                                       rssiDBm: venue.model.rssiDBm(atDistanceMeters: d)))
            }
            out.append(Observation(t: t, anchor: "nobody", target: target, rssiDBm: -70))
            t += 0.25
        }
        return out
    }

    static func app(mode: GatewayConfiguration.Mode, targets: [String], clock: ManualClock) throws -> GatewayApp {
        var c = GatewayConfiguration()
        c.mode = mode
        c.setSource(.observations(path: "in-memory"))
        c.venuePath = "in-memory"
        let inputs = targets.map { target in
            PacedReplaySource(name: target, observations: standing(seconds: 5, target: target), clock: clock)
        }
        return try GatewayApp(
            configuration: c, inputs: inputs, venue: venue, defaultWebRoot: "/nonexistent", clock: clock,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    /// Advances the clock a quarter second at a time (each time something sleeps on it) until `done`.
    static func drive(_ clock: ManualClock, until done: () -> Bool) async {
        for _ in 0..<2_000 where !done() {
            await clock.waitForSleepers()
            clock.advance(by: 0.25)
            await Task.yield()
        }
    }

    @Test(.timeLimit(.minutes(1))) func selfModeGoesThroughTheBeaconDataSource() async throws {
        let clock = ManualClock(start: 1000)
        let app = try Self.app(mode: .self, targets: ["self"], clock: clock)
        guard case .selfMode(let dataSource, _) = app.locationService.spine else {
            Issue.record("self mode is not a BeaconLocationDataSource")
            return
        }
        let service = Task { try await app.locationService.run() }
        await Self.drive(clock) { app.hub.drawing(of: "self") != nil && app.hub.current.first?.t ?? 0 >= 1003 }
        #expect(dataSource.status == .started)
        let fix = try #require(app.hub.current.first)
        #expect(fix.target == "self" && abs(fix.x - 3) < 0.5 && abs(fix.y - 4) < 0.5)
        #expect(fix.latitude != nil, "the venue's origin gives coordinates")
        await Self.drive(clock) { app.metrics.exposition().contains("bluedot_unknown_anchor_observations_total 1") }
        let text = app.metrics.exposition()
        #expect(!text.contains("bluedot_fixes_total 0\n"))
        #expect(text.contains("bluedot_advertising_reports_total"))
        service.cancel()
        try await service.value
        #expect(dataSource.status == .stopped)
        #expect(app.hub.subscriberCount == 0)
    }

    @Test(.timeLimit(.minutes(1))) func tagsReachTheFeedAndExpireWhenUnheard() async throws {
        let clock = ManualClock(start: 1000)
        let app = try Self.app(mode: .tag, targets: ["tag-1", "tag-2"], clock: clock)
        guard case .tags(let source) = app.locationService.spine else {
            Issue.record("tag mode is not a BeaconLocationSource")
            return
        }
        let feed = app.hub.subscribe()
        let service = Task { try await app.locationService.run() }
        await Self.drive(clock) { app.hub.targetCount == 2 }
        #expect(source.status == .available)
        #expect(source.runner.pipeline.liveTargets == 2, "one engine for both inputs")
        // The inputs end after 5 s; 60 s later nobody has heard either tag: the source deletes them.
        await Self.drive(clock) { app.hub.targetCount == 0 }
        #expect(source.locations.isEmpty)
        service.cancel()
        try await service.value
        var events: [FeedEvent] = []
        for await message in feed { events.append(message.event) }
        #expect(events.contains(.status(.available)))
        #expect(events.contains(.removed(target: "tag-1")) && events.contains(.removed(target: "tag-2")))
        let fixes = events.filter { if case .fix = $0 { true } else { false } }
        #expect(fixes.count >= 2 * 4)
        #expect(source.status == .inactive)
    }
}
