import BlueDotCore
import Formats
import LocationBus
import Logging
import Positioning
import Testing

@testable import Site

/// The campus view's rules, message by message (no broker: `CampusSource.handle` takes what the client would
/// hand over). `CampusBridgeTests` runs it against real bridged brokers.
/// Counts the fixes each update carries.
private final class UpdateCounter: LocationSourceObserver {
    let fixes = LockedValue(0)
    func onLocationsUpdated(_ locations: [Location], source: LocationSource) { fixes.withLock { $0 += locations.count } }
    func onLocationsDeleted(_ targetIDs: [String], source: LocationSource) {}
    func onRoomsChanged(_ changes: [RoomChange], source: LocationSource) {}
    func onStatusChanged(_ status: LocationSourceStatus, source: LocationSource) {}
}

@Suite struct CampusSourceTests {
    static func campus() throws -> (CampusSource, ManualClock) {
        let clock = ManualClock(start: 1000)
        let client = try MQTTClient(options: MQTTOptions(url: "mqtt://127.0.0.1:1"), logger: Logger(label: "test.campus"))
        return (CampusSource(client: client, sites: ["+"], clock: clock, logger: Logger(label: "test.campus")), clock)
    }

    static func fix(_ target: String, t: Double, x: Double, lastKnown: Bool = false) -> MQTTMessage {
        let location = Location(timestamp: t, targetID: target, x: x, y: 2, horizontalAccuracyMeters: 1.5,
                                lastKnown: lastKnown, anchorCount: lastKnown ? 0 : 4)
        return MQTTMessage(topic: "", text: LocationWriter.line(location))
    }

    static func on(_ topic: String, _ message: MQTTMessage) -> MQTTMessage {
        var m = message
        m.topic = topic
        return m
    }

    @Test func fixesCarryTheirSiteAndARepeatIsDroppedOnce() throws {
        let (campus, _) = try Self.campus()
        let observer = UpdateCounter()
        campus.addObserver(observer)
        campus.handle(Self.on("bluedot/west/locations/keys", Self.fix("keys", t: 10, x: 1)))
        campus.handle(Self.on("bluedot/west/locations/keys", Self.fix("keys", t: 10, x: 1)))
        campus.handle(Self.on("bluedot/west/locations/keys", Self.fix("keys", t: 9, x: 5)))
        #expect(campus.locations["keys"]?.site == "west" && campus.locations["keys"]?.x == 1)
        #expect(campus.statistics.locations == 1 && campus.statistics.repeats == 2)
        #expect(observer.fixes.value == 1, "one update, one history row")
    }

    /// A tag carried from the west wing into the east wing: the east's live fixes win; the west's last word about it
    /// (last known, later) does not take it back; the west's live fix does.
    @Test func oneAnswerPerTargetAcrossSites() throws {
        let (campus, _) = try Self.campus()
        campus.handle(Self.on("bluedot/west/locations/keys", Self.fix("keys", t: 10, x: 1)))
        campus.handle(Self.on("bluedot/east/locations/keys", Self.fix("keys", t: 12, x: 7)))
        #expect(campus.locations["keys"]?.site == "east")
        campus.handle(Self.on("bluedot/west/locations/keys", Self.fix("keys", t: 13, x: 1, lastKnown: true)))
        #expect(campus.locations["keys"]?.site == "east" && campus.statistics.superseded == 1)
        campus.handle(Self.on("bluedot/west/locations/keys", Self.fix("keys", t: 20, x: 2)))
        #expect(campus.locations["keys"]?.site == "west" && campus.locations["keys"]?.x == 2)
    }

    /// The bridge's `0` (or the solver's `offline`) makes a site stale: its current targets turn last known once,
    /// with their silence; the other site's do not. `1` and a new fix make them current again.
    @Test func aSiteCutOffShowsItsTargetsLastKnown() throws {
        let (campus, clock) = try Self.campus()
        campus.handle(Self.on("bluedot/west/bridge", MQTTMessage(topic: "", text: "1")))
        campus.handle(Self.on("bluedot/west/status", MQTTMessage(topic: "", text: "online")))
        campus.handle(Self.on("bluedot/west/locations/keys", Self.fix("keys", t: 10, x: 1)))
        campus.handle(Self.on("bluedot/east/locations/tag", Self.fix("tag", t: 10, x: 3)))
        clock.advance(by: 4)
        campus.handle(Self.on("bluedot/west/bridge", MQTTMessage(topic: "", text: "0")))
        let west = try #require(campus.sites.first { $0.site == "west" })
        #expect(west.isStale && west.bridgeUp == false && west.solver == "online")
        #expect(campus.locations["keys"]?.lastKnown == true && campus.locations["keys"]?.silentForSeconds == 4)
        #expect(campus.locations["tag"]?.lastKnown == false)
        campus.handle(Self.on("bluedot/west/bridge", MQTTMessage(topic: "", text: "1")))
        campus.handle(Self.on("bluedot/west/locations/keys", Self.fix("keys", t: 10, x: 1)))
        #expect(campus.locations["keys"]?.lastKnown == true, "the retained fix sent again is a repeat")
        campus.handle(Self.on("bluedot/west/locations/keys", Self.fix("keys", t: 15, x: 1)))
        #expect(campus.locations["keys"]?.lastKnown == false && campus.sites.first { $0.site == "west" }?.isStale == false)
        campus.handle(Self.on("bluedot/east/status", MQTTMessage(topic: "", text: "offline")))
        #expect(campus.locations["tag"]?.lastKnown == true && campus.sites.first { $0.site == "east" }?.isStale == true)
    }

    @Test func venuesAreReadAndBadPayloadsCountedByKind() throws {
        let (campus, _) = try Self.campus()
        let venue = Venue(name: "west wing", anchors: [Anchor(id: "rx-1", x: 0, y: 0)])
        campus.handle(Self.on("bluedot/west/venue", MQTTMessage(topic: "", text: VenueWriter.json(venue))))
        #expect(campus.sites.first { $0.site == "west" }?.venue?.name == "west wing")
        campus.handle(Self.on("bluedot/east/venue", MQTTMessage(topic: "", text: "{\"name\": 3}")))
        let east = try #require(campus.sites.first { $0.site == "east" })
        #expect(east.venue == nil && (east.venueError ?? "").contains("bluedot/east/venue"))
        campus.handle(Self.on("bluedot/east/locations/x", MQTTMessage(topic: "", text: "{\"t\": 1}")))
        campus.handle(Self.on("bluedot/east/status", MQTTMessage(topic: "", text: "maybe")))
        campus.handle(Self.on("bluedot/east/bridge", MQTTMessage(topic: "", text: "up")))
        #expect(campus.statistics.rejected == ["venue:malformed": 1, "location:malformed": 1, "status:malformed": 1,
                                               "bridge:malformed": 1])
        #expect(campus.locations.isEmpty)
    }
}
