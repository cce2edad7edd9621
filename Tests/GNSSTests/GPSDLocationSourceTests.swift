import BlueDotCore
import GNSS
import LocationBus
import Testing

/// The locations a `LocationSource` delivers, from its event stream, until `count` came.
func collectLocations(_ events: AsyncStream<LocationSourceEvent>, count: Int) async -> [Location] {
    var got: [Location] = []
    for await event in events {
        if case .updated(let locations) = event { got += locations }
        if got.count >= count { break }
    }
    return got
}

/// The statuses a `LocationSource` goes through, from its event stream, until `last` (inclusive).
func collectStatuses(_ events: AsyncStream<LocationSourceEvent>, until last: LocationSourceStatus) async
    -> [LocationSourceStatus] {
    var got: [LocationSourceStatus] = []
    for await event in events {
        guard case .statusChanged(let status) = event else { continue }
        got.append(status)
        if status == last { break }
    }
    return got
}

/// `GPSDLocationSource` against a scripted gpsd: the watch command, modes, headings, bad lines, reconnects.
@Suite("gpsd source")
struct GPSDLocationSourceTests {
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
        let source = GPSDLocationSource(connection: gpsd, origin: GeographicOrigin(latitude: 42.1, longitude: -88.0),
                                        reconnectDelaySeconds: nil, clock: clock)
        let locations = source.events, states = source.events, headings = source.headings
        // gpsd went away and reconnects are off: the run ends, naming gpsd and why.
        await #expect(throws: GPSDError.lost("scripted-gpsd", reason: "gpsd closed the connection")) {
            try await source.run()
        }
        let got = await collectLocations(locations, count: 4)
        #expect(await headings.prefix(1).reduce(into: [Double]()) { $0.append($1) } == [43.31])
        #expect(gpsd.written == [#"?WATCH={"enable":true,"json":true}"# + "\n"])
        #expect(got.map(\.lastKnown) == [false, false, true, true])  // last: the link closed, still grey
        #expect(got.allSatisfy { $0.targetID == "self" })
        #expect(got[0].x == 0 && got[0].y == 0 && got[0].headingDegrees == nil && got[0].source == .gnss)
        #expect(got[1].headingDegrees == 43.31 && got[1].latitude == 42.1001)
        #expect(source.heading(at: 100) == 43.31, "the heading, for the hand-over's beacon fixes")
        #expect(abs(got[1].horizontalAccuracyMeters - 8 * GPSDFixes.radius68Per95) < 1e-12)
        #expect(got[2].latitude == 42.1001)
        let statistics = source.statistics
        #expect(statistics.fixes == 2 && statistics.noFix == 1 && statistics.headings == 1 && statistics.malformed == 2)
        #expect(statistics.lastMalformed == "report: expected an object (column 1)")
        #expect(await collectStatuses(states, until: .unavailable) == [.initialising, .available, .unavailable])
        #expect(source.status == .unavailable)
    }

    /// gpsd's lines go through the shared `LineSplitter`: a line longer than the limit is counted once and skipped
    /// to its end, and the reports on either side of it are read.
    @Test func aLineTooLongIsCountedAndSkipped() async throws {
        let long = #"{"class":"TPV","device":""# + String(repeating: "x", count: GPSDLocationSource.maximumLineBytes + 10)
            + #"","mode":3,"lat":1,"lon":2}"#
        let gpsd = ScriptedGPSD([.lines([Self.tpv(3, 42.1, -88.0), long, Self.tpv(3, 42.2, -88.0)])])
        let source = GPSDLocationSource(connection: gpsd, origin: nil, reconnectDelaySeconds: nil, clock: ManualClock())
        let locations = source.events
        _ = try? await source.run()
        let got = await collectLocations(locations, count: 3)
        #expect(got.map(\.latitude) == [42.1, 42.2, 42.2] && got.map(\.lastKnown) == [false, false, true])
        #expect(source.statistics.malformed == 1 && source.statistics.fixes == 2)
        #expect(source.statistics.lastMalformed == "a line longer than \(GPSDLocationSource.maximumLineBytes) bytes")
    }

    @Test func firstConnectFailingEndsTheRunWithoutReconnects() async {
        let source = GPSDLocationSource(connection: ScriptedGPSD([.refuse]), origin: nil, reconnectDelaySeconds: nil,
                                        clock: ManualClock())
        await #expect(throws: GPSDError.unreachable("scripted-gpsd", error: "connection refused")) {
            try await source.run()
        }
        #expect(source.status == .unavailable)
    }

    @Test func reconnectsAfterRefusalsAndRestartsOnTheClock() async throws {
        let gpsd = ScriptedGPSD([.refuse, .lines([Self.version, Self.tpv(3, 42.1, -88.0)]), .refuse,
                                 .lines([Self.version, Self.tpv(3, 42.2, -88.0)])])
        let clock = ManualClock(start: 0)
        let source = GPSDLocationSource(connection: gpsd, origin: nil, reconnectDelaySeconds: 2, clock: clock)
        let locations = source.events
        var states = source.connectionStates.makeAsyncIterator()
        let run = Task { try await source.run() }
        #expect(await states.next() == .connecting)
        #expect(await states.next() == .disconnected(reason: "connection refused", retryAt: 2))
        #expect(source.status == .unavailable)  // a daemon's source runs on while gpsd is away
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
        let got = await collectLocations(locations, count: 4)
        #expect(got.map(\.lastKnown) == [false, true, true, false])
        #expect(got.map(\.latitude) == [42.1, 42.1, 42.1, 42.2])
        #expect(source.statistics.connections == 2 && source.statistics.reconnects >= 3 && gpsd.opens >= 4)
        await source.stop()
        try await run.value
        #expect(source.status == .inactive)
    }
}
