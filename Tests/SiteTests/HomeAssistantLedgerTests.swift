import BlueDotCore
import LocationDisplay
import Testing

@testable import Site

/// The publishing rules (`HomeAssistantLedger`), without a broker: what goes out on the first fix, on a room change,
/// at which rate, after a reconnect, when the link is down, and when a target is forgotten.
@Suite struct HomeAssistantLedgerTests {
    static let discovery = HomeAssistantDiscovery(
        topics: SiteTopics(site: "flat")!, allow: [IDPattern("tag-*")!], roomNames: ["hall": "Hall", "den": "Den"])

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
    }

    static func fix(_ target: String = "tag-1", t: Double, x: Double = 1, room: String? = "hall",
                    lastKnown: Bool = false) -> Location {
        Location(timestamp: t, targetID: target, x: x, y: 2, floor: 0, horizontalAccuracyMeters: 1,
            lastKnown: lastKnown, room: room, roomProbability: 0.9)
    }

    @Test func theFirstFixAnnouncesThenEachChangeIsTold() {
        let d = Self.discovery, link = Link()
        var ledger = HomeAssistantLedger(discovery: d, attributesIntervalSeconds: 1)
        ledger.update([Self.fix(t: 10)], connection: 1, send: link.send)
        let retained = link.sent.allSatisfy(\.retain)
        #expect(link.topics() == [d.solverConfigTopic, d.trackerConfigTopic("tag-1"), d.sensorConfigTopic("tag-1"),
                                  d.attributesTopic("tag-1"), d.stateTopic("tag-1"), d.roomTopic("tag-1")])
        #expect(retained, "Home Assistant restarting finds everything on the broker")
        #expect(ledger.announced == ["tag-1"])

        // Same room, moved: only the attributes.
        ledger.update([Self.fix(t: 11, x: 1.5)], connection: 1, send: link.send)
        #expect(link.take() == [#"bluedot/flat/ha/tag-1/attributes {"x":1.50,"y":2.00,"floor":0,"accuracy":1.00,"room":"hall","roomProbability":0.900,"lastKnown":false}"#])
        // Nothing changed: nothing sent.
        ledger.update([Self.fix(t: 12, x: 1.5)], connection: 1, send: link.send)
        #expect(link.take() == [])
        // Another room: attributes at once, then both states.
        ledger.update([Self.fix(t: 12.2, x: 4, room: "den")], connection: 1, send: link.send)
        #expect(link.take().filter { !$0.contains("/attributes ") }
            == ["bluedot/flat/ha/tag-1/state Den", "bluedot/flat/ha/tag-1/room Den"])
        // Out of every room.
        ledger.update([Self.fix(t: 14, x: 9, room: nil)], connection: 1, send: link.send)
        #expect(link.take().filter { !$0.contains("/attributes ") }
            == ["bluedot/flat/ha/tag-1/state not_home", "bluedot/flat/ha/tag-1/room none"])
        #expect(ledger.statistics.configs == 3 && ledger.statistics.states == 6)
    }

    /// Attributes at most once per interval of fix time; a change of room, floor or lastKnown goes out at once.
    @Test func attributesAreBoundedByTheInterval() {
        let link = Link()
        var ledger = HomeAssistantLedger(discovery: Self.discovery, attributesIntervalSeconds: 1)
        for i in 0..<40 {  // 10 s of fixes at 4 Hz (times exact in binary), moving
            ledger.update([Self.fix(t: 100 + Double(i) * 0.25, x: Double(i) * 0.1)], connection: 1, send: link.send)
        }
        let attributes = link.topics().filter { $0.hasSuffix("/attributes") }.count
        #expect(attributes == 10, "one per second of 10 s")
        #expect(ledger.statistics.attributesHeldBack == 30)
        ledger.update([Self.fix(t: 109.9, x: 0, lastKnown: true)], connection: 1, send: link.send)
        #expect(link.topics() == [Self.discovery.attributesTopic("tag-1")], "lost: told at once")
        var everyFix = HomeAssistantLedger(discovery: Self.discovery, attributesIntervalSeconds: 0)
        for i in 0..<5 {
            everyFix.update([Self.fix(t: Double(i) * 0.2, x: Double(i))], connection: 1, send: link.send)
        }
        #expect(link.topics().filter { $0.hasSuffix("/attributes") }.count == 5)
    }

    /// Targets outside the allow-list, or whose id cannot be a topic level, are never announced.
    @Test func onlyAllowedTargetsAreAnnounced() {
        let link = Link()
        var ledger = HomeAssistantLedger(discovery: Self.discovery, attributesIntervalSeconds: 1)
        ledger.update([Self.fix("phone", t: 1), Self.fix("tag-1/x", t: 1), Self.fix("tag-2", t: 1)], connection: 1,
                      send: link.send)
        #expect(ledger.announced == ["tag-2"])
        #expect(!link.topics().contains { $0.contains("phone") || $0.contains("tag-1") })
        #expect(ledger.statistics.skipped == 2)
    }

    /// Forgetting clears every retained message of the target, configs first, with empty retained payloads; a
    /// target never announced is left alone.
    @Test func forgettingClearsTheRetainedConfigs() {
        let d = Self.discovery, link = Link()
        var ledger = HomeAssistantLedger(discovery: d, attributesIntervalSeconds: 1)
        ledger.update([Self.fix(t: 1), Self.fix("tag-2", t: 1)], connection: 1, send: link.send)
        _ = link.take()
        ledger.forget(["tag-1", "phone"], connection: 1, send: link.send)
        let cleared = link.sent
        #expect(cleared.map(\.topic) == d.retainedTopics(of: "tag-1"))
        #expect(cleared.allSatisfy { $0.payload.isEmpty && $0.retain && $0.qos == 1 })
        #expect(Array(cleared.map(\.topic).prefix(2)) == [d.trackerConfigTopic("tag-1"), d.sensorConfigTopic("tag-1")])
        #expect(ledger.announced == ["tag-2"] && ledger.clearing.isEmpty)
        _ = link.take()
        // Seen again: announced again, as new.
        ledger.update([Self.fix(t: 40)], connection: 1, send: link.send)
        #expect(link.topics().prefix(2) == [d.trackerConfigTopic("tag-1"), d.sensorConfigTopic("tag-1")])
    }

    /// A forget while the link is down is kept, and the clears go out with the next event once it is back.
    @Test func clearsRefusedByTheLinkAreSentLater() {
        let d = Self.discovery, link = Link()
        var ledger = HomeAssistantLedger(discovery: d, attributesIntervalSeconds: 1)
        ledger.update([Self.fix(t: 1), Self.fix("tag-2", t: 1)], connection: 1, send: link.send)
        _ = link.take()
        link.up = false
        ledger.forget(["tag-1"], connection: 1, send: link.send)
        #expect(ledger.clearing == ["tag-1": d.retainedTopics(of: "tag-1")] && ledger.statistics.refused > 0)
        link.up = true
        ledger.update([Self.fix("tag-2", t: 5, x: 3)], connection: 2, send: link.send)
        let topics = link.topics()
        #expect(Array(topics.prefix(6)) == [d.solverConfigTopic] + d.retainedTopics(of: "tag-1"))
        #expect(ledger.clearing.isEmpty)
    }

    /// A new connection (the broker may have restarted without its retained messages) announces the solver and
    /// every target again, with its states, at its next fix; a config the link refused is sent with the next fix.
    @Test func aNewConnectionAnnouncesEverythingAgain() {
        let d = Self.discovery, link = Link()
        var ledger = HomeAssistantLedger(discovery: d, attributesIntervalSeconds: 1)
        ledger.update([Self.fix(t: 1)], connection: 1, send: link.send)
        let first = link.take()
        ledger.update([Self.fix(t: 2)], connection: 1, send: link.send)
        #expect(link.take() == [])
        ledger.update([Self.fix(t: 2)], connection: 2, send: link.send)
        #expect(link.take() == first, "the same configs, attributes and states as the first time")

        link.up = false
        var refused = HomeAssistantLedger(discovery: d, attributesIntervalSeconds: 1)
        refused.update([Self.fix(t: 1)], connection: 0, send: link.send)
        #expect(refused.announced.isEmpty && link.sent.isEmpty)
        link.up = true
        refused.update([Self.fix(t: 2)], connection: 1, send: link.send)
        #expect(refused.announced == ["tag-1"] && link.topics().count == 6)
    }
}
