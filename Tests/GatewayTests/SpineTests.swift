import BeaconLocation
import BlueDotCore
import Foundation
import Gateway
import Hummingbird
import LocationBus
import LocationDisplay
import Logging
import Positioning
import Testing

/// The assembled spine on a manual clock: inputs → one engine → the LocationSource → the hub and the metrics as
/// observers; self mode and tag mode alike through one `BeaconLocationSource` (self mode's one target is `self`).
@Suite struct GatewaySpineTests {
    /// A 12 m x 8 m room with four receivers-as-anchors and an origin; the spine's output is checked for place, not
    /// for accuracy (BeaconLocationTests does that).
    static let venue = Venue(
        name: "room", origin: Venue.Origin(latitude: 52.2297, longitude: 21.0122, bearingDegrees: 0),
        anchors: [
            Anchor(id: "n", x: 6, y: 8, z: 2.5), Anchor(id: "e", x: 12, y: 4, z: 2.5),
            Anchor(id: "s", x: 6, y: 0, z: 2.5), Anchor(id: "w", x: 0, y: 4, z: 2.5),
        ])

    /// `target` standing at (4, 3) for `seconds`, heard by every anchor at 4 Hz without noise (Positioning's
    /// `Simulator`), and by an anchor the venue does not have.
    static func standing(target: String, seconds: Double = 5) -> [Observation] {
        let track = Track(target: target, waypoints: [.init(t: 0, x: 4, y: 3), .init(t: seconds, x: 4, y: 3)])
        var rng = SplitMix64(seed: 1)
        let heard = Simulator(venue: venue, configuration: SimulationConfiguration(rateHz: 4, shadowingSigmaDB: 0))
            .simulate(tracks: [track], using: &rng).map(\.observation)
        let stranger = stride(from: 0.0, to: seconds, by: 1).map {
            Observation(t: $0, anchor: "stranger", target: target, rssiDBm: -70)
        }
        return (heard + stranger).sorted { $0.t < $1.t }
    }

    static func app(mode: GatewayConfiguration.Mode, targets: [String], clock: ManualClock,
                    venue: Venue = GatewaySpineTests.venue, seconds: Double = 5) throws -> GatewayApp {
        var c = GatewayConfiguration()
        c.mode = mode
        c.setSource(.observations(path: "in-memory"))
        c.venuePath = "in-memory"
        let inputs = targets.map { target in
            PacedReplaySource(name: target, observations: standing(target: target, seconds: seconds), clock: clock)
        }
        return try GatewayApp(
            configuration: c, inputs: inputs, venue: venue, defaultWebRoot: "/nonexistent", clock: clock,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    /// Advances the clock a quarter second at a time until `done`, each time once `sleepers` tasks wait on it (every
    /// input, the runner's ticker and the service's housekeeping), so no task lags behind the time.
    static func drive(_ clock: ManualClock, sleepers: Int, until done: () -> Bool) async {
        for _ in 0..<2_000 where !done() {
            await clock.waitForSleepers(count: sleepers)
            clock.advance(by: 0.25)
            try? await Task.sleep(for: .milliseconds(1))  // lets the observers' tasks catch up with the hub
        }
    }

    @Test(.timeLimit(.minutes(1))) func selfModeIsTheBeaconSourceWithOneTarget() async throws {
        let clock = ManualClock(start: 1000)
        let app = try Self.app(mode: .self, targets: ["self"], clock: clock)
        let source = try #require(app.locationService.spine.beacons, "self mode is a BeaconLocationSource")
        #expect(app.locationService.spine.source === source && source.id == "self", "no relay between")
        let service = Task { try await app.locationService.run() }
        // The input, the ticker and the housekeeping sleep on the clock.
        await Self.drive(clock, sleepers: 3) { app.hub.drawing(of: "self") != nil && app.hub.current.first?.timestamp ?? 0 >= 1003 }
        #expect(source.status == .available)
        #expect(Set(source.locations.keys) == ["self"])
        let fix = try #require(app.hub.current.first)
        #expect(fix.targetID == "self" && abs(fix.x - 4) < 0.5 && abs(fix.y - 3) < 0.5)
        #expect(fix.latitude != nil, "the venue's origin gives coordinates")
        await Self.drive(clock, sleepers: 2) { app.metrics.exposition().contains("bluedot_unknown_anchor_observations_total 1") }
        let text = app.metrics.exposition()
        #expect(!text.contains("bluedot_fixes_total 0\n"))
        #expect(text.contains("bluedot_advertising_reports_total"))
        service.cancel()
        try await service.value
        #expect(source.status == .inactive)
        #expect(app.hub.subscriberCount == 0)
    }

    @Test(.timeLimit(.minutes(1))) func tagsReachTheFeedAndExpireWhenUnheard() async throws {
        let clock = ManualClock(start: 1000)
        let app = try Self.app(mode: .tag, targets: ["tag-1", "tag-2"], clock: clock)
        let source = try #require(app.locationService.spine.beacons, "tag mode is a BeaconLocationSource")
        #expect(app.locationService.spine.source === source)
        let feed = app.hub.subscribe()
        let service = Task { try await app.locationService.run() }
        await Self.drive(clock, sleepers: 4) { app.hub.targetCount == 2 }  // two inputs, ticker, housekeeping
        #expect(source.status == .available)
        #expect(source.runner.pipeline?.liveTargets == 2, "one engine for both inputs")
        // The inputs end after 5 s; 60 s later nobody has heard either tag: the source deletes them.
        await Self.drive(clock, sleepers: 2) { app.hub.targetCount == 0 }
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

    /// A venue with rooms: the engine names each fix's room, the rooms' relaying source counts the tags in, the feed
    /// says they entered (and left, when they are forgotten), `/api/rooms` and `/api/venue` show the rooms.
    @Test(.timeLimit(.minutes(1))) func roomsCountTheTagsIn() async throws {
        func p(_ x: Double, _ y: Double) -> Venue.PlanPoint { Venue.PlanPoint(x: x, y: y) }
        var venue = Self.venue
        venue.rooms = [
            Venue.Room(id: "west", name: "West", polygon: [p(0, 0), p(7, 0), p(7, 8), p(0, 8)]),
            Venue.Room(id: "east", name: "East", polygon: [p(7, 0), p(12, 0), p(12, 8), p(7, 8)]),
        ]
        let clock = ManualClock(start: 1000)
        // 8 s: the room is decided 3 s behind its fix (`roomLagSeconds`) and after 2 s in it (the dwell), and a
        // replay's engine runs on its reports' time, which stops with the last of them.
        let app = try Self.app(mode: .tag, targets: ["tag-1", "tag-2"], clock: clock, venue: venue, seconds: 8)
        let rooms = try #require(app.dependencies.rooms)
        let feed = app.hub.subscribe()
        let service = Task { try await app.locationService.run() }
        // The relay counts members, then publishes the rooms' locations: wait for both, not the first alone.
        await Self.drive(clock, sleepers: 4) {
            rooms.members["west"] == ["tag-1", "tag-2"] && rooms.locations["west"]?.attributes["occupancy"] == "2"
        }
        #expect(app.hub.current.allSatisfy { $0.room == "west" && ($0.roomProbability ?? 0) > 0.6 })
        #expect(rooms.locations["west"]?.attributes["occupancy"] == "2")
        #expect(rooms.locations["east"]?.attributes["occupancy"] == "0")
        try await Application(router: GatewayRouter.build(app.dependencies)).test(.router) { client in
            try await client.execute(uri: "/api/rooms", method: .get) { response in
                #expect(String(buffer: response.body) ==
                    #"[{"id":"west","name":"West","floor":0,"occupancy":2,"targets":["tag-1","tag-2"]},"#
                    + #"{"id":"east","name":"East","floor":0,"occupancy":0,"targets":[]}]"#)
            }
            try await client.execute(uri: "/api/venue", method: .get) { response in
                #expect(String(buffer: response.body).contains(
                    #""rooms":[{"exit":false,"floor":0,"holes":[],"id":"west","name":"West","polygon":[[0,0],[7,0],[7,8],[0,8]]}"#))
            }
        }
        await Self.drive(clock, sleepers: 2) { app.hub.targetCount == 0 }
        await Self.drive(clock, sleepers: 2) { rooms.members["west"] == [] }
        service.cancel()
        try await service.value
        var events: [FeedEvent] = []
        for await message in feed { events.append(message.event) }
        let roomEvents = events.filter { if case .enter = $0 { true } else if case .leave = $0 { true } else { false } }
        #expect(roomEvents.count == 4, "\(roomEvents)")
        #expect(roomEvents.contains { if case .enter(target: "tag-1", room: "west", t: _) = $0 { true } else { false } })
        #expect(roomEvents.contains { if case .leave(target: "tag-2", room: "west", t: _) = $0 { true } else { false } })
    }
}

/// The metrics observer: fixes counted, report-to-fix latency from `Location.reportedAt` on the clock, the inputs'
/// and engine's counters added as they grow.
@Suite struct MetricsObserverTests {
    @Test func fixesLatencyAndCounters() {
        let metrics = GatewayMetrics()
        let observer = MetricsObserver(metrics: metrics, clock: ManualClock(start: 1000))
        let source = LocationSource(id: "t", clock: ManualClock(start: 1000))
        let fixes = (0..<9).map { i in
            Location(timestamp: Double(i), x: 3, y: 4, horizontalAccuracyMeters: 1, anchorCount: 4, reportedAt: 999.4)
        }
        observer.onLocationsUpdated(fixes, source: source)
        var inputs = SourceStatistics()
        inputs.reports = 120
        inputs.malformed = 2
        var engine = PositioningEngine.Counters()
        engine.unknownAnchors = 40
        observer.record(inputs: inputs, engine: engine)
        inputs.reports = 130
        observer.record(inputs: inputs, engine: engine)  // only what grew is added
        let text = metrics.exposition()
        #expect(text.contains("bluedot_fixes_total 9\n"))
        #expect(text.contains("bluedot_advertising_reports_total 130\n"))
        #expect(text.contains("bluedot_malformed_reports_total 2\n"))
        #expect(text.contains("bluedot_unknown_anchor_observations_total 40\n"))
        #expect(text.contains("bluedot_report_to_fix_latency_seconds_bucket{le=\"0.5\"} 0\n"))
        #expect(text.contains("bluedot_report_to_fix_latency_seconds_bucket{le=\"1.0\"} 9\n"), "all 0.6 s")
    }
}
