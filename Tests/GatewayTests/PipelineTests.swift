import Foundation
import Gateway
import LocationDisplay
import Positioning
import Scanner
import HCI
import Synchronization
import Testing
import BlueDotCore

/// Observations through the engine to the hub and metrics; paced replays; sighting mapping; projection.
@Suite struct PipelineTests {
    let venue = Venue(
        name: "square", origin: Venue.Origin(latitude: 41, longitude: 29, bearingDegrees: 90),
        anchors: [
            Anchor(id: "a", x: 0, y: 0, z: 2), Anchor(id: "b", x: 10, y: 0, z: 2),
            Anchor(id: "c", x: 0, y: 10, z: 2), Anchor(id: "d", x: 10, y: 10, z: 2),
        ])

    /// Noiseless observations of a target standing at (3, 4), 4 Hz per anchor, for `seconds`.
    func standing(seconds: Double, target: String = "self", unknown: Bool = false) -> [Observation] {
        var out: [Observation] = []
        let model = venue.model
        var t = 0.0
        while t < seconds {
            for anchor in venue.anchors {
                let d = ((anchor.x - 3) * (anchor.x - 3) + (anchor.y - 4) * (anchor.y - 4) + 0.8 * 0.8).squareRoot()
                let rssi = model.measuredPowerDBm - 10 * model.pathLossExponent * log10(d)
                out.append(Observation(t: t, anchor: anchor.id, target: target, rssiDBm: rssi))
            }
            if unknown { out.append(Observation(t: t, anchor: "nobody", target: target, rssiDBm: -70)) }
            t += 0.25
        }
        return out
    }

    @Test func fixesReachTheHubWithCoordinatesAndMetrics() {
        let hub = LocationHub(clock: ManualClock(start: 1000))
        let metrics = GatewayMetrics()
        let pipeline = Pipeline(venue: venue, configuration: .moving, hub: hub, metrics: metrics, wallClock: { 1000 })
        for o in standing(seconds: 10, unknown: true) { pipeline.ingest(o, arrivedAt: 999.4) }
        let current = hub.current
        #expect(current.count == 1)
        let fix = try! #require(current.first)
        #expect(abs(fix.x - 3) < 0.5 && abs(fix.y - 4) < 0.5, "noiseless ranges: within 0.5 m of (3, 4)")
        // bearing 90: +y points east, so y = 4 m east and x = 3 m south of the origin.
        let lat = try! #require(fix.latitude), lon = try! #require(fix.longitude)
        #expect(abs((lat - 41) * 111_195 + fix.x) < 0.01)
        #expect(abs((lon - 29) * 111_195 * cos(41 * Double.pi / 180) - fix.y) < 0.01)
        let text = metrics.exposition()
        #expect(text.contains("bluedot_fixes_total \(pipeline.counters.fixes)\n"))
        #expect(pipeline.counters.fixes >= 9)
        #expect(text.contains("bluedot_unknown_anchor_observations_total 40\n"))
        #expect(text.contains("bluedot_report_to_fix_latency_seconds_bucket{le=\"0.5\"} 0\n"))
        #expect(text.contains("bluedot_report_to_fix_latency_seconds_bucket{le=\"1.0\"} \(pipeline.counters.fixes)\n"), "all 0.6 s")
    }

    /// A target nobody hears any more: advancing the pipeline by the source's clock publishes last-known fixes
    /// with a growing radius on the 1 s grid, and nothing twice.
    @Test func advancingReleasesLastKnownFixesOfAQuietTarget() throws {
        let hub = LocationHub(clock: ManualClock(start: 1000))
        let pipeline = Pipeline(venue: venue, configuration: .moving, hub: hub, metrics: GatewayMetrics(),
                                wallClock: { 1000 })
        for o in standing(seconds: 3) { pipeline.ingest(o, arrivedAt: 999) }
        #expect(try #require(hub.current.first).t == 2)
        // The grid point at 3 s holds the last packets (2.25-2.75 s); after it nothing is heard.
        pipeline.advance(to: 3.75)
        let heard = try #require(hub.current.first)
        #expect(!heard.lastKnown && heard.t == 3)
        var radii: [Double] = []
        for k in 2...6 {
            pipeline.advance(to: 2.75 + Double(k))
            let fix = try #require(hub.current.first)
            #expect(fix.t == 2 + Double(k) && fix.lastKnown)
            radii.append(fix.horizontalAccuracy)
        }
        #expect(zip(radii, radii.dropFirst()).allSatisfy { $0 < $1 })
        let fixes = pipeline.counters.fixes
        pipeline.advance(to: 8.75)
        #expect(pipeline.counters.fixes == fixes)
    }

    /// The paced replay's clock: while it runs, observation time is its start plus `speed` times the wall time
    /// since; stopped, it has none. Live scans and recordings are stamped with the wall clock itself.
    @Test func sourcesTellTheirObservationClock() async throws {
        let wall = SharedWall(5000)
        let source = PacedReplaySource(name: "t", observations: standing(seconds: 4), speed: 2,
                                       wallClock: { wall.now })
        #expect(source.observationTime(atWallTime: 5001) == nil)
        let started = SeenObservations()
        let task = Task { try await source.run { o, _ in started.add(o) } }
        while started.count == 0 { try await Task.sleep(for: .milliseconds(2)) }
        #expect(source.observationTime(atWallTime: 5001.5) == 5003)
        source.stop()
        try await task.value
        #expect(source.observationTime(atWallTime: 5001) == nil)
        let mapper = SightingMapper(mode: .self, gatewayID: nil)
        let recording = RecordingSource(path: "/nonexistent", mapper: mapper, wallClock: { 0 })
        #expect(recording.observationTime(atWallTime: 123.5) == 123.5)
    }

    @Test func pacedReplayLoopsWithTimeGoingForward() async throws {
        let observations = standing(seconds: 1)
        let source = PacedReplaySource(
            name: "t", observations: observations, speed: 1000, loop: true, loopGapSeconds: 1, wallClock: { 5000 })
        let seen = SeenObservations()
        let task = Task { try await source.run { o, _ in seen.add(o) } }
        while seen.count < observations.count * 3 { try await Task.sleep(for: .milliseconds(5)) }
        source.stop()
        try await task.value
        let times = seen.all.map(\.t)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(times.first == 5000)
        #expect(times[observations.count] == 5000 + 0.75 + 1, "second loop: after the span and the gap")
        #expect(source.statistics.loops >= 2)
        #expect(source.statistics.reports == seen.count)
    }

    @Test func sightingsBecomeObservationsByMode() {
        let sighting = Sighting(
            timestamp: 7, address: BDAddress("C0:00:00:00:00:01")!, addressType: .random, rssiDBm: -61,
            txPowerDBm: -4, dataStatus: .complete, beacon: nil)
        let selfMode = SightingMapper(mode: .self, gatewayID: nil).observation(for: sighting)
        #expect(selfMode == Observation(t: 7, anchor: "mac:c0:00:00:00:00:01", rssiDBm: -61, txPowerDBm: -4))
        let tagMode = SightingMapper(mode: .tag, gatewayID: "rx-1").observation(for: sighting)
        #expect(tagMode == Observation(t: 7, anchor: "rx-1", target: "mac:c0:00:00:00:00:01", rssiDBm: -61, txPowerDBm: -4))
        var silent = sighting
        silent.rssiDBm = nil
        #expect(SightingMapper(mode: .self, gatewayID: nil).observation(for: silent) == nil)
    }

    @Test func listenAddresses() throws {
        #expect(try ListenAddress.parse("0.0.0.0:80").get() == ListenAddress(host: "0.0.0.0", port: 80))
        #expect(try ListenAddress.parse("[::]:8080").get().description == "[::]:8080")
        #expect(try ListenAddress.parse("localhost:1").get().isLoopback)
        #expect(!(try ListenAddress.parse("192.168.1.2:1").get().isLoopback))
        #expect((try? ListenAddress.parse("a b:1").get()) == nil)
        #expect((try? ListenAddress.parse(":80").get()) == nil)
        #expect((try? ListenAddress.parse("[::1]80").get()) == nil)
    }
}

/// Observations collected from a source's callback.
final class SeenObservations: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Observation] = []
    func add(_ o: Observation) { lock.withLock { items.append(o) } }
    var count: Int { lock.withLock { items.count } }
    var all: [Observation] { lock.withLock { items } }
}

/// A wall clock a test can read from any task.
final class SharedWall: Sendable {
    private let value: Mutex<Double>
    init(_ start: Double) { value = Mutex(start) }
    var now: Double { value.withLock { $0 } }
}
