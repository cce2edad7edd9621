import BlueDotCore
import Foundation
import GNSS
import Testing

/// `GPSDLocationSource` against Debian's gpsd replaying gpsd's own regression logs (`gpsfake`), checked
/// against what gpsd's `gpspipe -w` decoded from the same replay. gpspipe's lines are read with Foundation's
/// `JSONSerialization`, not with the parser under test.
@Suite("gpsd through gpsfake", .serialized, .enabled(if: GPSFake.enabled,
    "gpsd's gpsfake and gpspipe are missing (apt-get install gpsd gpsd-clients); BLUEDOT_REQUIRE_INTEGRATION=1 fails"))
struct GPSDGpsfakeTests {
    /// One report as gpspipe printed it.
    struct Expected {
        var className: String
        var mode: Int?
        var time: String?
        var latitude: Double?
        var longitude: Double?
        var heading: Double?
    }

    static func decode(_ lines: [String]) -> [Expected] {
        lines.compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let className = object["class"] as? String, className == "TPV" || className == "ATT"
            else { return nil }
            return Expected(className: className, mode: object["mode"] as? Int, time: object["time"] as? String,
                            latitude: object["lat"] as? Double, longitude: object["lon"] as? Double,
                            heading: object["heading"] as? Double)
        }
    }

    /// The replay of `log` watched at once by gpspipe and by a source without reconnects, until gpsd goes away.
    static func replay(_ log: String, origin: GeographicOrigin? = nil)
        async throws -> (expected: [Expected], locations: [Location], headings: [Double], source: GPSDLocationSource) {
        let fake = try await GPSFake(log: GPSFake.log(log), port: GPSFake.port())
        let pipe = try GPSPipe(port: fake.port)
        let source = try GPSDLocationSource(endpoint: "127.0.0.1:\(fake.port)", origin: origin,
                                            reconnectDelaySeconds: nil)
        let locations = LockedValue<[Location]>([]), headings = LockedValue<[Double]>([])
        let stream = source.events, headingStream = source.headings
        let follow = Task {
            for await event in stream { if case .updated(let new) = event { locations.withLock { $0 += new } } }
        }
        let followHeadings = Task { for await heading in headingStream { headings.withLock { $0.append(heading) } } }
        let running = Task { try await source.run() }
        await fake.waitForExit()
        // gpsd went away with gpsfake: without reconnects the run ends and says so.
        let result = await running.result
        var error: (any Error)?
        if case .failure(let failure) = result { error = failure }
        #expect(source.status == .unavailable)
        #expect("\(error.map { "\($0)" } ?? "")".contains("was lost"))
        let lines = pipe.stop()
        let expected = decode(lines)
        #expect(!expected.isEmpty, "gpspipe printed \(lines.count) lines, none a TPV or ATT: \(lines.prefix(3))")
        try await Task.sleep(for: .milliseconds(100))
        follow.cancel()
        followHeadings.cancel()
        return (expected, locations.withLock { $0 }, headings.withLock { $0 }, source)
    }

    @Test("garmin-10x.log: every fix at gpsd's position, the loss of fix grey, as gpspipe decoded it")
    func positionsAndLossOfFix() async throws {
        let run = try await Self.replay("garmin-10x.log")
        let tpvs = run.expected.filter { $0.className == "TPV" }
        // What gpspipe's reports stand for, in order: a fix where gpsd has one, the last fix grey where it has not
        // (nothing before the first fix). The source and gpspipe connected in the same 1.4 s before the feed.
        var expected: [(lastKnown: Bool, latitude: Double, longitude: Double)] = []
        for tpv in tpvs {
            if (tpv.mode ?? 0) >= 2, let lat = tpv.latitude, let lon = tpv.longitude {
                expected.append((false, lat, lon))
            } else if let last = expected.last {
                expected.append((true, last.latitude, last.longitude))
            }
        }
        // The source adds one grey location when gpsd goes away at the end.
        #expect(run.locations.count == expected.count + 1, "\(run.locations.count) locations for \(expected.count)")
        var maxErrorDegrees = 0.0
        for (location, want) in zip(run.locations, expected) {
            #expect(location.lastKnown == want.lastKnown)
            maxErrorDegrees = max(maxErrorDegrees, abs(location.latitude! - want.latitude),
                                  abs(location.longitude! - want.longitude))
            #expect(location.source == .gnss && location.anchorCount == 0 && location.floor == nil)
        }
        #expect(maxErrorDegrees == 0, "positions differ from gpspipe's by up to \(maxErrorDegrees)°")
        // The log loses its fix after a 3D fix (the dot goes grey at the last fix), then finds it again.
        let fixes = expected.map { !$0.lastKnown }
        #expect(zip(fixes, fixes.dropFirst()).contains { $0 && !$1 } && zip(fixes, fixes.dropFirst()).contains { !$0 && $1 },
                "gpsd's modes in the replay: \(tpvs.map { $0.mode ?? 0 })")
        #expect(run.source.statistics.malformed == 0)
        #expect(run.source.statistics.fixes == fixes.filter { $0 }.count)
        print("gpsfake garmin-10x.log: \(tpvs.count) TPVs (\(fixes.filter { $0 }.count) fixes, "
              + "\(fixes.filter { !$0 }.count) grey), max |Δ| vs gpspipe \(maxErrorDegrees)°")
    }

    @Test("rst39.log: HDT headings reach the heading stream in gpspipe's order, and ride on the locations")
    func headingsFromHDT() async throws {
        let run = try await Self.replay("rst39.log")
        let expectedHeadings = run.expected.filter { $0.className == "ATT" }.compactMap(\.heading)
        #expect(expectedHeadings.count >= 3)
        #expect(run.headings == expectedHeadings)
        #expect(Set(run.headings).count >= 3, "a turning vehicle: the heading changes")
        let withHeading = run.locations.filter { $0.headingDegrees != nil && !$0.lastKnown }
        #expect(!withHeading.isEmpty && withHeading.allSatisfy { expectedHeadings.contains($0.headingDegrees!) })
        let fixes = run.expected.filter { $0.className == "TPV" && ($0.mode ?? 0) >= 2 }
        #expect(run.locations.filter { !$0.lastKnown }.map(\.latitude) == fixes.map(\.latitude))
        print("gpsfake rst39.log: \(fixes.count) fixes, headings \(run.headings)")
    }

    @Test("gpsd restarting: the source goes grey, says it is disconnected, and reconnects")
    func reconnectsWhenGpsdRestarts() async throws {
        let port = GPSFake.port()
        let source = try GPSDLocationSource(endpoint: "127.0.0.1:\(port)", origin: nil, reconnectDelaySeconds: 0.5)
        let locations = LockedValue<[Location]>([])
        let stream = source.events
        let follow = Task {
            for await event in stream { if case .updated(let new) = event { locations.withLock { $0 += new } } }
        }
        let first = try await GPSFake(log: GPSFake.log("rst39.log"), port: port)
        let running = Task { try await source.run() }
        await first.waitForExit()
        for _ in 0..<100 {
            if case .disconnected = source.connectionState { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard case .disconnected = source.connectionState else {
            Issue.record("after gpsd stopped: \(source.connectionState)")
            return
        }
        #expect(source.status == .unavailable, "a daemon's source runs on while gpsd is away")
        #expect(locations.withLock { $0.last?.lastKnown } == true)
        let before = locations.withLock { $0.count }
        let second = try await GPSFake(log: GPSFake.log("rst39.log"), port: port)
        await second.waitForExit()
        #expect(source.statistics.connections >= 2)
        #expect(locations.withLock { $0[before...].contains { !$0.lastKnown } })
        await source.stop()
        try await running.value
        follow.cancel()
    }
}
