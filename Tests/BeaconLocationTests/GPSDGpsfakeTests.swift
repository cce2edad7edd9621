import BeaconLocation
import BlueDotCore
import Foundation
import LocationDisplay
import Testing

/// `GPSDLocationDataSource` against Debian's gpsd replaying gpsd's own regression logs (`gpsfake`), checked
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
        async throws -> (expected: [Expected], locations: [Location], headings: [Double], source: GPSDLocationDataSource) {
        let fake = try await GPSFake(log: GPSFake.log(log), port: GPSFake.port())
        let pipe = try GPSPipe(port: fake.port)
        let source = try GPSDLocationDataSource(endpoint: "127.0.0.1:\(fake.port)", origin: origin,
                                                reconnectDelaySeconds: nil)
        let locations = LockedValue<[Location]>([]), headings = LockedValue<[Double]>([])
        let stream = source.locations, headingStream = source.headings
        let follow = Task { for await location in stream { locations.withLock { $0.append(location) } } }
        let followHeadings = Task { for await heading in headingStream { headings.withLock { $0.append(heading) } } }
        try await source.start()
        await fake.waitForExit()
        // gpsd went away with gpsfake: without reconnects the source stops and says so.
        for _ in 0..<100 where source.status != .stopped { try await Task.sleep(for: .milliseconds(50)) }
        #expect(source.status == .stopped)
        #expect("\(source.error.map { "\($0)" } ?? "")".contains("was lost"))
        let expected = decode(pipe.stop())
        try await Task.sleep(for: .milliseconds(100))
        follow.cancel()
        followHeadings.cancel()
        return (expected, locations.withLock { $0 }, headings.withLock { $0 }, source)
    }

    /// gpspipe's time text normalised as the source writes it (milliseconds).
    static func key(_ time: String?) -> String? {
        time.flatMap(InternetTime.parse).map { InternetTime.format($0, fractionDigits: 3) }
    }

    @Test("garmin-10x.log: every fix at gpsd's position, the loss of fix grey, as gpspipe decoded it")
    func positionsAndLossOfFix() async throws {
        let run = try await Self.replay("garmin-10x.log")
        let tpvs = run.expected.filter { $0.className == "TPV" && $0.time != nil }
        let byTime = Dictionary(run.locations.compactMap { l in l.attributes["gpsdTime"].map { ($0, l) } },
                                uniquingKeysWith: { a, _ in a })
        // The source and gpspipe connect in the same 1.4 s before the feed: they see the same reports.
        let seen = tpvs.filter { Self.key($0.time).map { byTime[$0] != nil } ?? false }
        #expect(seen.count == tpvs.count, "the source saw \(seen.count) of gpspipe's \(tpvs.count) timed TPVs")
        var maxErrorDegrees = 0.0
        for tpv in seen {
            let location = byTime[Self.key(tpv.time)!]!
            let hasFix = (tpv.mode ?? 0) >= 2
            #expect(location.lastKnown == !hasFix, "TPV at \(tpv.time!) mode \(tpv.mode ?? -1)")
            if hasFix, let lat = tpv.latitude, let lon = tpv.longitude {
                maxErrorDegrees = max(maxErrorDegrees, abs(location.latitude! - lat), abs(location.longitude! - lon))
                #expect(location.source == .gnss && location.anchorCount == 0 && location.floor == nil)
            }
        }
        #expect(maxErrorDegrees == 0, "positions differ from gpspipe's by up to \(maxErrorDegrees)°")
        // The log loses its fix after a 3D fix: the dot goes grey at the last fix, then comes back.
        let fixes = seen.map { ($0.mode ?? 0) >= 2 }
        let lost = zip(fixes, fixes.dropFirst()).contains { $0 && !$1 }
        let regained = zip(fixes, fixes.dropFirst()).contains { !$0 && $1 }
        #expect(lost && regained, "gpsd's modes in the replay: \(seen.map { $0.mode ?? 0 })")
        let greys = run.locations.filter { $0.lastKnown && $0.attributes["gpsdMode"] == "no fix" }
        #expect(!greys.isEmpty)
        #expect(run.source.statistics.malformed == 0 && run.source.statistics.noFix == greys.count)
        print("gpsfake garmin-10x.log: \(seen.count) TPVs (\(fixes.filter { $0 }.count) fixes, "
              + "\(fixes.filter { !$0 }.count) without), max |Δ| vs gpspipe \(maxErrorDegrees)°")
    }

    @Test("rst39.log: HDT headings reach didUpdateHeading in gpspipe's order, and ride on the locations")
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
        let source = try GPSDLocationDataSource(endpoint: "127.0.0.1:\(port)", origin: nil, reconnectDelaySeconds: 0.5)
        let locations = LockedValue<[Location]>([])
        let stream = source.locations
        let follow = Task { for await location in stream { locations.withLock { $0.append(location) } } }
        let first = try await GPSFake(log: GPSFake.log("rst39.log"), port: port)
        try await source.start()
        await first.waitForExit()
        for _ in 0..<100 {
            if case .disconnected = source.connectionState { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard case .disconnected = source.connectionState else {
            Issue.record("after gpsd stopped: \(source.connectionState)")
            return
        }
        #expect(source.status == .started)
        #expect(locations.withLock { $0.last?.lastKnown } == true)
        let before = locations.withLock { $0.count }
        let second = try await GPSFake(log: GPSFake.log("rst39.log"), port: port)
        await second.waitForExit()
        #expect(source.statistics.connections >= 2)
        #expect(locations.withLock { $0[before...].contains { !$0.lastKnown } })
        await source.stop()
        follow.cancel()
    }
}
