import BlueDotCore
import Formats
import JSON
import Positioning
import Testing

@testable import Site

@Suite struct MQTTOptionsTests {
    @Test func urlsGiveHostPortTLSAndUser() throws {
        let plain = try MQTTOptions(url: "mqtt://broker.lan")
        #expect(plain.host == "broker.lan" && plain.port == 1883 && !plain.tls && plain.username == nil)
        let secure = try MQTTOptions(url: "mqtts://gw@broker.lan")
        #expect(secure.port == 8883 && secure.tls && secure.username == "gw")
        let v6 = try MQTTOptions(url: "mqtt://[::1]:1884/")
        #expect(v6.host == "::1" && v6.port == 1884)
        #expect(v6.url == "mqtt://[::1]:1884")
    }

    @Test func badURLsSayWhy() {
        for (url, words) in [
            ("http://x", "expected mqtt://"), ("mqtt://u:secret@x", "password"), ("mqtt://x:0", "port"),
            ("mqtt://x/topic", "no path"), ("mqtt://", "no host"), ("mqtt://[::1", "unclosed"),
        ] {
            #expect(throws: MQTTError.self) { try MQTTOptions(url: url) }
            do {
                _ = try MQTTOptions(url: url)
            } catch {
                #expect("\(error)".contains(words), "\(url): \(error)")
            }
        }
    }
}

@Suite struct IDPatternTests {
    @Test func globsMatchWholeIDsCaseInsensitively() throws {
        let uuid = try #require(IDPattern("ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:*"))
        #expect(uuid.matches("ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7"))
        #expect(uuid.matches("IBEACON:F7826DA6-4FA2-4E98-8024-BC5B71E0893E:2:9"))
        #expect(!uuid.matches("ibeacon:00000000-4fa2-4e98-8024-bc5b71e0893e:1:7"))
        let one = try #require(IDPattern("mac:c0:00:00:00:00:0?"))
        #expect(one.matches("mac:c0:00:00:00:00:01") && !one.matches("mac:c0:00:00:00:00:011"))
        let middle = try #require(IDPattern("*:1:*"))
        #expect(middle.matches("ibeacon:x:1:7") && !middle.matches("ibeacon:x:2:7"))
        #expect(IDPattern("") == nil)
        #expect(IDPattern.allows([], "anything"))
        #expect(!IDPattern.allows([uuid], "mac:aa:bb:cc:dd:ee:ff"))
    }
}

@Suite struct ClockOffsetEstimatorTests {
    @Test func theSmallestTripGivesTheOffsetAndJitterTheRest() throws {
        var e = ClockOffsetEstimator(windowSeconds: 30)
        #expect(e.offset == nil)
        // The receiver's clock is 2 s behind; trips take 5 to 80 ms.
        var rng = SplitMix64(seed: 3)
        for k in 0..<100 {
            let sent = 1000.0 + Double(k) * 0.1
            let trip = 0.005 + Double(rng.next() % 75) / 1000
            e.add(sent: sent, arrival: sent + 2 + trip)
        }
        let offset = try #require(e.offset)
        #expect(abs(offset - 2.005) < 0.002)
        let jitter = try #require(e.jitter)
        #expect(jitter > 0.01 && jitter < 0.07)
    }

    @Test func aSteppedClockIsFollowedWithinTheWindow() throws {
        var e = ClockOffsetEstimator(windowSeconds: 5)
        for k in 0..<50 { e.add(sent: Double(k) * 0.1, arrival: Double(k) * 0.1 + 1.01) }
        #expect(abs((e.offset ?? 0) - 1.01) < 1e-9)
        // The receiver's clock is stepped forward by 1 s: the offset drops at once (a smaller difference).
        for k in 50..<60 { e.add(sent: Double(k) * 0.1 + 1, arrival: Double(k) * 0.1 + 1.01) }
        #expect(abs((e.offset ?? 0) - 0.01) < 1e-9)
        // Stepped back by 3 s: the larger offset takes over once the window forgets the old samples.
        for k in 60..<200 { e.add(sent: Double(k) * 0.1 - 2, arrival: Double(k) * 0.1 + 1.01) }
        #expect(abs((e.offset ?? 0) - 3.01) < 1e-9)
    }
}

@Suite struct SightingBatchTests {
    static let batch = SightingBatch(receiver: "rx-\"1\"", sequence: 42, clock: 1_732_400_000.125, sightings: [
        Observation(t: 1_732_400_000.031, anchor: "rx-\"1\"", target: "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7",
                    rssiDBm: -71, txPowerDBm: -59),
        Observation(t: 1_732_400_000.044, anchor: "rx-\"1\"", target: "mac:c0:00:00:00:00:01", rssiDBm: -80.5),
    ])

    @Test func encodesCompactJSONAndReadsItBack() throws {
        let bytes = Self.batch.encoded()
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix(#"{"v":1,"receiver":"rx-\"1\"","seq":42,"clock":1732400000.125,"sightings":[{"t":1732400000.031,"id":"ibeacon:"#))
        #expect(text.contains(#""rssi":-71,"txPower":-59}"#))
        #expect(text.contains(#""rssi":-80.5}"#))
        #expect(try SightingBatch.decode(bytes) == Self.batch)
        // Through the generic JSON reader too: valid JSON.
        guard case .object = try JSONValue.parse(bytes) else {
            Issue.record("not an object")
            return
        }
    }

    /// A solver's string table gives the same batches as a fresh decode, batch after batch (the receiver's escaped
    /// name included), and refuses bad batches the same way.
    @Test func decodingThroughAStringTableGivesTheSameBatches() throws {
        var table = StringTable(slotCount: 16)
        for k in 0..<50 {
            let batch = SightingBatch(receiver: k % 2 == 0 ? "rx-\"1\"" : "rx-\(k)", sequence: k, clock: 1_732_400_000,
                                      sightings: (0..<40).map { j in
                                          Observation(t: 1_732_400_000 + Double(j) * 0.01, anchor: "",
                                                      target: "tag:\((j * 7 + k) % 30)", rssiDBm: -60 - Double(j % 20))
                                      })
            let bytes = batch.encoded()
            #expect(try SightingBatch.decode(bytes, table: &table) == batch)
            #expect(try SightingBatch.decode(bytes) == batch)
        }
        #expect(throws: SightingBatchError.self) { try SightingBatch.decode(Array("{}".utf8), table: &table) }
    }

    /// A batch's sightings are observations: the receiver as anchor (whatever anchor they were given, and wherever
    /// `receiver` stands in the object), the beacon as target, times on the receiver's clock.
    @Test func sightingsAreObservationsOfTheReceiver() throws {
        let other = SightingBatch(receiver: "rx-9", sequence: 0, clock: 1, sightings: [
            Observation(t: 1, anchor: "elsewhere", target: "tag", rssiDBm: -70),
        ])
        #expect(other.sightings.map(\.anchor) == ["rx-9"])
        let o = Self.batch.sightings[0]
        #expect(o.anchor == "rx-\"1\"" && o.target.hasPrefix("ibeacon:") && o.rssiDBm == -71 && o.txPowerDBm == -59)
        let receiverLast = #"{"v":1,"seq":3,"clock":5,"sightings":[{"t":4.5,"id":"tag","rssi":-60}],"receiver":"rx-2"}"#
        let read = try SightingBatch.decode(Array(receiverLast.utf8))
        #expect(read.sightings == [Observation(t: 4.5, anchor: "rx-2", target: "tag", rssiDBm: -60)])
    }

    @Test func badBatchesNameTheField() {
        let cases: [(String, String)] = [
            (#"{"v":2,"receiver":"a","clock":1,"sightings":[]}"#, "v: version 2"),
            (#"{"v":1,"clock":1,"sightings":[]}"#, "receiver: missing"),
            (#"{"v":1,"receiver":"a","sightings":[]}"#, "clock: missing"),
            (#"{"v":1,"receiver":"a","clock":1,"sightings":[{"t":1,"id":"x","rssi":"-70"}]}"#, "sightings[0].rssi"),
            (#"{"v":1,"receiver":"a","clock":1,"sightings":[{"t":1,"rssi":-70}]}"#, "sightings[0].id: missing"),
            (#"{"v":1,"receiver":"a","clock":1,"sightings":[{"t":1,"id":"x","rssi":-70}"#, "unterminated"),
            ("garbage", "expected an object"),
            (#"[1,2]"#, "expected an object"),
        ]
        for (text, words) in cases {
            do {
                _ = try SightingBatch.decode(Array(text.utf8))
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.kind == "malformed")
                #expect(error.description.contains(words), "\(text): \(error)")
            }
        }
        #expect(throws: SightingBatchError.tooLarge(11, maximum: 10)) {
            try SightingBatch.decode(Array("{\"v\":1    }".utf8), maximumBytes: 10)
        }
        let many = SightingBatch(receiver: "a", sequence: 0, clock: 1, sightings: Array(
            repeating: Observation(t: 1, anchor: "a", target: "x", rssiDBm: -70), count: SightingBatch.maximumSightings + 1))
        #expect(throws: SightingBatchError.self) { try SightingBatch.decode(many.encoded(), maximumBytes: 1 << 20) }
    }
}

@Suite struct LiveReorderTests {
    @Test func aClockCutoffLetsOutInOrderAndRefusesWhatComesAfterIt() {
        var buffer = ReorderBuffer<Int>(tolerance: .infinity)
        for (t, v) in [(1.0, 1), (3.0, 3), (2.0, 2), (5.0, 5)] { _ = buffer.insert(v, t: t) }
        var out: [Int] = []
        while let v = buffer.popReady(notAfter: 3) { out.append(v) }
        #expect(out == [1, 2, 3])
        #expect(buffer.insert(0, t: 2.5) == .late)
        #expect(buffer.insert(4, t: 4) == .admitted(reordered: true))
        while let v = buffer.popReady(notAfter: 10) { out.append(v) }
        #expect(out == [1, 2, 3, 4, 5])
    }
}

@Suite struct ESPresenseIDTests {
    @Test func espresenseIBeaconIDsBecomeCanonical() {
        #expect(SiteSource.canonicalTarget("iBeacon:F7826DA6-4FA2-4E98-8024-BC5B71E0893E-1-7")
            == "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7")
        #expect(SiteSource.canonicalTarget("iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-100-40122")
            == "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:100:40122")
        // ESPresense's Eddystone-UID ids: the firmware's (the namespace's fifth octet, bd, printed twice) and the
        // plain 20 digits.
        #expect(SiteSource.canonicalTarget("eddy:b8202f43bdbd98bf7f8fe8-0a1b2c3d4e5f")
            == "eddystone:b8202f43bd98bf7f8fe8:0a1b2c3d4e5f")
        #expect(SiteSource.canonicalTarget("eddy:B8202F43BD98BF7F8FE8-0A1B2C3D4E5F")
            == "eddystone:b8202f43bd98bf7f8fe8:0a1b2c3d4e5f")
        for other in ["apple:1005:9-26", "iBeacon:nothex-4fa2-4e98-8024-bc5b71e0893e-1-7",
                      "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-70000", "tile:abc",
                      "eddy:b8202f43bd0098bf7f8fe8-0a1b2c3d4e5f", "eddy:b8202f43bd98bf7f8f-0a1b2c3d4e5f",
                      "eddy:b8202f43bd98bf7f8fe8-0a1b2c3d4e", "eddy:b8202f43bd98bf7f8fe8:0a1b2c3d4e5f"] {
            #expect(SiteSource.canonicalTarget(other) == other)
        }
    }
}
