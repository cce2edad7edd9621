import BlueDotCore
import LocationDisplay
import Testing

@testable import HomeAssistant
@testable import Site

/// The publishing rules (`HomeAssistantLedger`), without a broker or a clock: what goes out on the first fix, on a
/// room change, at which rate, when the target is not heard for the away timeout, across a restart, after a
/// reconnect, when the link is down, and when a target is removed.
@Suite struct HomeAssistantLedgerTests {
    static let discovery = HomeAssistantDiscovery(
        topics: SiteTopics(site: "flat")!, allow: [IDPattern("tag-*")!], roomNames: ["hall": "Hall", "den": "Den"])
    static let away = 30.0

    /// A client stand-in: records what it takes while `up`, refuses everything while down.
    final class Link {
        var up = true
        var sent: [MQTTMessage] = []
        func send(_ m: MQTTMessage) -> Bool {
            if up { sent.append(m) }
            return up
        }
        /// What was sent since the last call, as `topic payload` lines.
        func take() -> [String] {
            defer { sent.removeAll() }
            return sent.map { "\($0.topic) \(String(decoding: $0.payload, as: UTF8.self))" }
        }
        /// Topics sent since the last call.
        func topics() -> [String] { take().map { String($0.prefix { $0 != " " }) } }
        /// The state messages sent since the last call (not configs, not attributes).
        func states() -> [String] { take().filter { !$0.contains("/config ") && !$0.contains("/attributes ") } }
    }

    static func ledger(_ d: HomeAssistantDiscovery = discovery, interval: Double = 1, removing: [String] = [],
                       start: Double = 0) -> HomeAssistantLedger {
        HomeAssistantLedger(discovery: d, attributesIntervalSeconds: interval, awayAfterSeconds: away,
                            clearDelaySeconds: 3, removing: removing, start: start)
    }

    static func fix(_ target: String = "tag-1", t: Double, x: Double = 1, room: String? = "hall",
                    lastKnown: Bool = false) -> Location {
        Location(timestamp: t, targetID: target, x: x, y: 2, floor: 0, horizontalAccuracyMeters: 1,
            lastKnown: lastKnown, anchorCount: 3, latitude: 52, longitude: 21, room: room, roomProbability: 0.9)
    }

    static func configTopics(_ target: String) -> [String] { discovery.configTopics(of: target) }

    @Test func theFirstFixAnnouncesThenEachChangeIsTold() {
        let d = Self.discovery, link = Link()
        var ledger = Self.ledger()
        ledger.update([Self.fix(t: 10)], now: 10, connection: 1, send: link.send)
        let retained = link.sent.allSatisfy(\.retain)
        #expect(link.topics() == [d.solverConfigTopic] + Self.configTopics("tag-1")
            + [d.attributesTopic("tag-1"), d.stateTopic("tag-1"), d.roomTopic("tag-1")])
        #expect(retained, "Home Assistant restarting finds everything on the broker")
        #expect(ledger.announced == ["tag-1"])

        // Same room, moved: only the attributes.
        ledger.update([Self.fix(t: 11, x: 1.5)], now: 11, connection: 1, send: link.send)
        #expect(link.take() == [#"bluedot/flat/ha/tag-1/attributes {"x_m":1.50,"y_m":2.00,"floor":0,"accuracy_m":1.00,"room":"hall","room_probability":0.900,"receivers":3,"last_known":false,"latitude":52.0000000,"longitude":21.0000000,"gps_accuracy":1.0}"#])
        // Nothing changed: nothing sent.
        ledger.update([Self.fix(t: 12, x: 1.5)], now: 12, connection: 1, send: link.send)
        #expect(link.take() == [])
        // Another room: the room sensor; the tracker stays home.
        ledger.update([Self.fix(t: 12.2, x: 4, room: "den")], now: 12.2, connection: 1, send: link.send)
        #expect(link.states() == ["bluedot/flat/ha/tag-1/room Den"])
        // Out of every room, still located: home, room none.
        ledger.update([Self.fix(t: 14, x: 9, room: nil)], now: 14, connection: 1, send: link.send)
        #expect(link.states() == ["bluedot/flat/ha/tag-1/room none"])
        #expect(ledger.statistics.configs == 5 && ledger.statistics.states == 4)
    }

    /// The tracker goes `not_home` once the clock has passed the away timeout without a current fix (a last-known
    /// fix does not count), with its room `none` and its attributes without coordinates; its entities stay. A
    /// current fix brings it home again.
    @Test func notHeardForTheAwayTimeoutIsNotHome() {
        let link = Link()
        var ledger = Self.ledger()
        ledger.update([Self.fix(t: 100)], now: 100, connection: 1, send: link.send)
        _ = link.take()
        ledger.update([Self.fix(t: 110, lastKnown: true)], now: 110, connection: 1, send: link.send)
        _ = link.take()
        ledger.sweep(now: 129.9, connection: 1, send: link.send)
        #expect(link.take() == [], "29.9 s since the last current fix")
        ledger.sweep(now: 130, connection: 1, send: link.send)
        let away = link.take()
        #expect(away == [
            #"bluedot/flat/ha/tag-1/attributes {"x_m":1.00,"y_m":2.00,"floor":0,"accuracy_m":1.00,"room":null,"receivers":0,"last_known":true}"#,
            "bluedot/flat/ha/tag-1/state not_home", "bluedot/flat/ha/tag-1/room none"])
        #expect(ledger.announced == ["tag-1"] && ledger.statistics.away == 1 && ledger.statistics.cleared == 0)
        ledger.sweep(now: 131, connection: 1, send: link.send)
        ledger.update([Self.fix(t: 131, lastKnown: true)], now: 131, connection: 1, send: link.send)
        #expect(link.take() == [], "told once; a last-known fix does not bring it back")
        ledger.update([Self.fix(t: 200, room: "den")], now: 200, connection: 1, send: link.send)
        #expect(link.states() == ["bluedot/flat/ha/tag-1/state home", "bluedot/flat/ha/tag-1/room Den"])
    }

    /// Locations that carry `presence` (a source with a presence rule) decide it: silence alone, however long, does
    /// not make the tracker `not_home` (a phone asleep in the bedroom), the source's `not_home` does, and a current
    /// fix brings it home.
    @Test func thePresenceTheLocationsCarryIsFollowed() {
        let link = Link()
        var ledger = Self.ledger()
        var heard = Self.fix(t: 100)
        heard.presence = .home
        ledger.update([heard], now: 100, connection: 1, send: link.send)
        _ = link.take()
        var asleep = Self.fix(t: 110, lastKnown: true)
        asleep.presence = .home
        asleep.silentForSeconds = 10
        ledger.update([asleep], now: 110, connection: 1, send: link.send)
        _ = link.take()
        ledger.sweep(now: 100 + 40 * 60, connection: 1, send: link.send)
        #expect(link.states() == [], "40 minutes of silence, still home: the source has not said otherwise")
        var gone = asleep
        gone.presence = .notHome
        gone.room = nil
        gone.silentForSeconds = 2700
        ledger.update([gone], now: 2800, connection: 1, send: link.send)
        #expect(link.states() == ["bluedot/flat/ha/tag-1/state not_home", "bluedot/flat/ha/tag-1/room none"])
        #expect(ledger.statistics.away == 1)
        ledger.sweep(now: 2900, connection: 1, send: link.send)
        #expect(link.take() == [])
        var back = Self.fix(t: 3000, room: "den")
        back.presence = .home
        ledger.update([back], now: 3000, connection: 1, send: link.send)
        #expect(link.states() == ["bluedot/flat/ha/tag-1/state home", "bluedot/flat/ha/tag-1/room Den"])
    }

    /// A restart: before the first fix nothing is said about a target, so the retained `home` holds (no
    /// `not_home` across the restart); a named target not heard within the away timeout of the start is announced
    /// `not_home`, and one heard in time never is.
    @Test func aRestartHoldsTheLastStateUntilTheFirstFix() {
        var d = Self.discovery
        d.names = ["tag-1": "Alice's keys", "tag-2": "Bob", "phone": "Not allowed"]
        let link = Link()
        var ledger = Self.ledger(d, start: 1000)
        ledger.sweep(now: 1001, connection: 1, send: link.send)
        #expect(link.topics() == [d.solverConfigTopic])
        ledger.update([Self.fix(t: 1005)], now: 1005, connection: 1, send: link.send)
        #expect(link.states() == ["bluedot/flat/ha/tag-1/state home", "bluedot/flat/ha/tag-1/room Hall"])
        ledger.sweep(now: 1029, connection: 1, send: link.send)
        #expect(link.take() == [])
        ledger.sweep(now: 1030, connection: 1, send: link.send)
        let sent = link.take()
        #expect(sent.filter { $0.contains("/config ") }.count == 4, "tag-2 announced, so its entities exist")
        #expect(sent.filter { !$0.contains("/config ") }
            == ["bluedot/flat/ha/tag-2/state not_home", "bluedot/flat/ha/tag-2/room none"])
        #expect(ledger.announced == ["tag-1", "tag-2"], "never the target outside the allow-list")
    }

    /// Attributes at most once per interval of fix time; a change of room, floor or lastKnown goes out at once.
    @Test func attributesAreBoundedByTheInterval() {
        let link = Link()
        var ledger = Self.ledger()
        for i in 0..<40 {  // 10 s of fixes at 4 Hz (times exact in binary), moving
            let t = 100 + Double(i) * 0.25
            ledger.update([Self.fix(t: t, x: Double(i) * 0.1)], now: t, connection: 1, send: link.send)
        }
        let attributes = link.topics().filter { $0.hasSuffix("/attributes") }.count
        #expect(attributes == 10, "one per second of 10 s")
        #expect(ledger.statistics.attributesHeldBack == 30)
        ledger.update([Self.fix(t: 109.9, x: 0, lastKnown: true)], now: 109.9, connection: 1, send: link.send)
        #expect(link.topics() == [Self.discovery.attributesTopic("tag-1")], "lost: told at once")
        var everyFix = Self.ledger(interval: 0)
        for i in 0..<5 {
            everyFix.update([Self.fix(t: Double(i) * 0.2, x: Double(i))], now: 0, connection: 1, send: link.send)
        }
        #expect(link.topics().filter { $0.hasSuffix("/attributes") }.count == 5)
    }

    /// Targets outside the allow-list, or whose id cannot be a topic level, are never announced.
    @Test func onlyAllowedTargetsAreAnnounced() {
        let link = Link()
        var ledger = Self.ledger()
        ledger.update([Self.fix("phone", t: 1), Self.fix("tag-1/x", t: 1), Self.fix("tag-2", t: 1)], now: 1,
                      connection: 1, send: link.send)
        #expect(ledger.announced == ["tag-2"])
        #expect(!link.topics().contains { $0.contains("phone") || $0.contains("tag-1") })
        #expect(ledger.statistics.skipped == 2)
    }

    /// A target to remove: its configs are cleared at the first event, its states and attributes only
    /// `clearDelaySeconds` later (Home Assistant has dropped the entities by then: no `Erroneous JSON`), all with
    /// empty retained messages; it is never announced, even when heard.
    @Test func removalClearsConfigsFirstThenTheStatesLater() {
        let d = Self.discovery, link = Link()
        var ledger = Self.ledger(removing: ["tag-1"], start: 0)
        ledger.update([Self.fix(t: 1), Self.fix("tag-2", t: 1)], now: 1, connection: 1, send: link.send)
        let first = link.sent.map(\.topic)
        #expect(Array(first.prefix(5)) == [d.solverConfigTopic] + d.configTopics(of: "tag-1"))
        #expect(!first.contains { $0.hasPrefix("bluedot/flat/ha/tag-1/") }, "states wait")
        #expect(link.sent.prefix(5).dropFirst().allSatisfy { $0.payload.isEmpty && $0.retain && $0.qos == 1 })
        _ = link.take()
        ledger.sweep(now: 3.9, connection: 1, send: link.send)
        #expect(link.take() == [])
        ledger.sweep(now: 4, connection: 1, send: link.send)
        let states = link.sent
        #expect(states.map(\.topic) == d.stateTopics(of: "tag-1"))
        #expect(states.allSatisfy { $0.payload.isEmpty && $0.retain })
        #expect(ledger.clearing.isEmpty && ledger.announced == ["tag-2"] && ledger.statistics.cleared == 7)
        _ = link.take()
        ledger.update([Self.fix(t: 40)], now: 40, connection: 1, send: link.send)
        #expect(link.take() == [], "a removed target is not announced again")
    }

    /// What earlier runs announced (`HomeAssistantRoster`): a target that had a name and lost it is removed, one
    /// still named or never named is expected (`not_home` unless heard within the away timeout of the adoption),
    /// an unnamed one outside the allow-list is left alone. The roster is read from retained tracker configs.
    @Test func targetsAnnouncedEarlierAreAdopted() throws {
        var d = Self.discovery
        d.names = ["tag-3": "New name"]
        let link = Link()
        var ledger = Self.ledger(d, start: 0)
        ledger.update([Self.fix("tag-1", t: 1)], now: 1, connection: 1, send: link.send)
        ledger.adopt(["tag-1": "Alice", "tag-2": "tag-2", "tag-3": "Old name", "phone": "phone"], now: 2)
        _ = link.take()
        ledger.sweep(now: 2, connection: 1, send: link.send)
        #expect(link.topics() == d.configTopics(of: "tag-1"), "tag-1 lost its name: its configs go")
        ledger.sweep(now: 5, connection: 1, send: link.send)
        #expect(link.topics() == d.stateTopics(of: "tag-1"))
        ledger.sweep(now: 29.9, connection: 1, send: link.send)
        #expect(link.take() == [])
        ledger.sweep(now: 30, connection: 1, send: link.send)
        #expect(link.states() == ["bluedot/flat/ha/tag-3/state not_home", "bluedot/flat/ha/tag-3/room none"],
                "named: expected from the start")
        ledger.sweep(now: 31.9, connection: 1, send: link.send)
        #expect(link.take() == [])
        ledger.sweep(now: 32, connection: 1, send: link.send)
        #expect(link.states() == ["bluedot/flat/ha/tag-2/state not_home", "bluedot/flat/ha/tag-2/room none"],
                "announced earlier: expected from the adoption")
        ledger.update([Self.fix("tag-1", t: 40)], now: 40, connection: 1, send: link.send)
        #expect(link.take() == [] && ledger.announced == ["tag-2", "tag-3"])

        let config = Array(d.trackerConfig("tag-3").utf8)
        let entry = try #require(HomeAssistantRoster.entry(config, discovery: d))
        #expect(entry.target == "tag-3" && entry.name == "New name")
        let other = HomeAssistantDiscovery(topics: SiteTopics(site: "other")!)
        #expect(HomeAssistantRoster.entry(Array(other.trackerConfig("tag-3").utf8), discovery: d) == nil,
                "another site's tracker")
        #expect(HomeAssistantRoster.entry([], discovery: d) == nil)
        #expect(HomeAssistantRoster.entry(Array("{".utf8), discovery: d) == nil)
    }

    /// A removal while the link is down is kept, and goes out once it is back.
    @Test func clearsRefusedByTheLinkAreSentLater() {
        let d = Self.discovery, link = Link()
        link.up = false
        var ledger = Self.ledger(removing: ["tag-1"])
        ledger.sweep(now: 1, connection: 0, send: link.send)
        #expect(ledger.clearing.keys.sorted() == ["tag-1"] && ledger.statistics.refused > 0)
        link.up = true
        ledger.sweep(now: 2, connection: 1, send: link.send)
        #expect(link.topics() == [d.solverConfigTopic] + d.configTopics(of: "tag-1"))
        ledger.sweep(now: 5, connection: 1, send: link.send)
        #expect(link.topics() == d.stateTopics(of: "tag-1"))
        #expect(ledger.clearing.isEmpty)
    }

    /// A new connection (the broker may have restarted without its retained messages) announces the solver and
    /// every target again, with its states, at its next fix (an away target at the next sweep); a config the link
    /// refused is sent with the next fix.
    @Test func aNewConnectionAnnouncesEverythingAgain() {
        let link = Link()
        var ledger = Self.ledger()
        ledger.update([Self.fix(t: 1), Self.fix("tag-2", t: 1)], now: 1, connection: 1, send: link.send)
        _ = link.take()
        ledger.update([Self.fix(t: 2)], now: 2, connection: 1, send: link.send)
        #expect(link.take() == [])
        ledger.update([Self.fix(t: 40)], now: 40, connection: 1, send: link.send)
        ledger.sweep(now: 40, connection: 1, send: link.send)
        #expect(link.states() == ["bluedot/flat/ha/tag-2/state not_home", "bluedot/flat/ha/tag-2/room none"])
        ledger.update([Self.fix(t: 41)], now: 41, connection: 2, send: link.send)
        ledger.sweep(now: 41, connection: 2, send: link.send)
        let again = link.take()
        #expect(again.filter { $0.contains("/config ") }.count == 9, "the solver and both targets")
        #expect(again.filter { !$0.contains("/config ") && !$0.contains("/attributes ") } == [
            "bluedot/flat/ha/tag-1/state home", "bluedot/flat/ha/tag-1/room Hall",
            "bluedot/flat/ha/tag-2/state not_home", "bluedot/flat/ha/tag-2/room none"])

        link.up = false
        var refused = Self.ledger()
        refused.update([Self.fix(t: 1)], now: 1, connection: 0, send: link.send)
        #expect(refused.announced.isEmpty && link.sent.isEmpty)
        link.up = true
        refused.update([Self.fix(t: 2)], now: 2, connection: 1, send: link.send)
        #expect(refused.announced == ["tag-1"] && link.topics().count == 8)
    }

    /// A venue or registry saved while running: the next fix tells everything again, the room sensor's config
    /// with the new room names among its options and the state under the new name (`rediscover`).
    @Test func newRoomsAndNamesAreAnnouncedAgain() {
        let link = Link()
        var ledger = Self.ledger()
        ledger.update([Self.fix(t: 1)], now: 1, connection: 1, send: link.send)
        _ = link.take()
        var renamed = Self.discovery
        renamed.roomNames = ["hall": "Entrance hall", "den": "Den", "porch": "Porch"]
        renamed.names = ["tag-1": "Alice"]
        ledger.rediscover(renamed)
        ledger.update([Self.fix(t: 2)], now: 2, connection: 1, send: link.send)
        let again = link.take()
        let sensor = again.first { $0.hasPrefix(renamed.sensorConfigTopic("tag-1") + " ") } ?? ""
        #expect(sensor.contains("Entrance hall") && sensor.contains("Porch"), "\(sensor)")
        #expect(again.contains("bluedot/flat/ha/tag-1/room Entrance hall"))
        #expect(again.contains { $0.hasPrefix(renamed.trackerConfigTopic("tag-1") + " ") && $0.contains("Alice") })
        #expect(again.contains { $0.hasPrefix(renamed.solverConfigTopic + " ") }, "as on a new connection")
    }
}
