import BeaconLocation
import BlueDotCore
import LocationDisplay
import Testing

/// `GPSDLocationDataSource` against a scripted gpsd: the watch command, modes, headings, bad lines, reconnects.
@Suite("gpsd source")
struct GPSDLocationDataSourceTests {
    static let version = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#
    static func tpv(_ mode: Int, _ lat: Double, _ lon: Double) -> String {
        #"{"class":"TPV","device":"/dev/pts/1","mode":\#(mode),"lat":\#(lat),"lon":\#(lon),"eph":8.0}"#
    }

    @Test func watchesReadsModesHeadingsAndSkipsBadLines() async throws {
        let gpsd = ScriptedGPSD([.lines([
            Self.version,
            Self.tpv(3, 42.1, -88.0),
            #"{"class":"ATT","device":"/dev/pts/1","heading":43.31}"#,
            #"{"class":"TPV","device":"/dev/pts/1","mode":3,"lat":"x","lon":-88.0}"#,
            "not json",
            Self.tpv(2, 42.1001, -88.0),
            #"{"class":"TPV","device":"/dev/pts/1","mode":1}"#,
        ])])
        let clock = ManualClock(start: 100)
        let source = GPSDLocationDataSource(connection: gpsd, origin: GeographicOrigin(latitude: 42.1, longitude: -88.0),
                                            reconnectDelaySeconds: nil, clock: clock)
        let locations = source.locations, headings = source.headings, states = source.statusChanges
        try await source.start()
        let got = await collect(locations, count: 4)
        #expect(await collect(headings, count: 1) == [43.31])
        #expect(gpsd.written == [#"?WATCH={"enable":true,"json":true}"# + "\n"])
        #expect(got.map(\.lastKnown) == [false, false, true, true])  // last: the link closed, still grey
        #expect(got[0].x == 0 && got[0].y == 0 && got[0].headingDegrees == nil && got[0].source == .gnss)
        #expect(got[1].headingDegrees == 43.31 && got[1].latitude == 42.1001)
        #expect(abs(got[1].horizontalAccuracyMeters - 8 * GPSDFixes.radius68Per95) < 1e-12)
        #expect(got[2].latitude == 42.1001)
        let statistics = source.statistics
        #expect(statistics.fixes == 2 && statistics.noFix == 1 && statistics.headings == 1 && statistics.malformed == 2)
        #expect(statistics.lastMalformed == "report: expected an object (column 1)")
        // gpsd went away and reconnects are off: the source stopped, naming gpsd and why.
        #expect(await collect(states, count: 4).last == .stopped)
        #expect(source.error as? GPSDError == .lost("scripted-gpsd", reason: "gpsd closed the connection"))
    }

    @Test func firstConnectFailingFailsTheStartWithoutReconnects() async {
        let source = GPSDLocationDataSource(connection: ScriptedGPSD([.refuse]), origin: nil, reconnectDelaySeconds: nil,
                                            clock: ManualClock())
        await #expect(throws: GPSDError.unreachable("scripted-gpsd", error: "connection refused")) {
            try await source.start()
        }
        #expect(source.status == .failedToStart)
    }

    @Test func reconnectsAfterRefusalsAndRestartsOnTheClock() async throws {
        let gpsd = ScriptedGPSD([.refuse, .lines([Self.version, Self.tpv(3, 42.1, -88.0)]), .refuse,
                                 .lines([Self.version, Self.tpv(3, 42.2, -88.0)])])
        let clock = ManualClock(start: 0)
        let source = GPSDLocationDataSource(connection: gpsd, origin: nil, reconnectDelaySeconds: 2, clock: clock)
        let locations = source.locations
        var states = source.connectionStates.makeAsyncIterator()
        try await source.start()
        #expect(source.status == .started)  // a daemon's source runs while gpsd is away
        #expect(await states.next() == .connecting)
        #expect(await states.next() == .disconnected(reason: "connection refused", retryAt: 2))
        await clock.waitForSleepers()
        clock.advance(by: 2)
        #expect(await states.next() == .connecting)
        #expect(await states.next() == .connected(release: nil))
        #expect(await states.next() == .connected(release: "3.22"))
        #expect(await states.next() == .disconnected(reason: "gpsd closed the connection", retryAt: 4))
        await clock.waitForSleepers()
        clock.advance(by: 2)
        #expect(await states.next() == .connecting)
        #expect(await states.next() == .disconnected(reason: "connection refused", retryAt: 6))
        await clock.waitForSleepers()
        clock.advance(by: 2)
        let got = await collect(locations, count: 4)
        #expect(got.map(\.lastKnown) == [false, true, true, false])
        #expect(got.map(\.latitude) == [42.1, 42.1, 42.1, 42.2])
        #expect(source.statistics.connections == 2 && source.statistics.reconnects >= 3 && gpsd.opens >= 4)
        await source.stop()
        #expect(source.status == .stopped)
    }
}

