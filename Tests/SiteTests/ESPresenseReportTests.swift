import BlueDotCore
import Site
import Foundation
import Testing

/// ESPresense node payloads, both firmware generations, written from the firmware's `BleFingerprint::fill`
/// (ESPresense/ESPresense `src/BleFingerprint.cpp`: 4.x at a6f1105e, 3.x at tag v3.3.6b7).
@Suite struct ESPresenseReportTests {
    /// Firmware 4.x on an ESP32-S3 (receiver adjustment 20 dB, the firmware's default for that chip): a known IRK.
    static let current = """
        {"mac":"5c2b1a7e9f10","id":"irk:6f2c1b0e9a8d7c6b5a4f3e2d1c0b9a88","name":"Pixel 7","rssi@1m":-65,\
        "rssi":-78.50,"rxAdj":20,"rssiVar":3.42,"distance":3.16,"var":0.85,"int":1180}
        """
    static let currentTopic = "espresense/devices/irk:6f2c1b0e9a8d7c6b5a4f3e2d1c0b9a88/upstairs_hallway"

    /// Firmware 3.x: an iBeacon (its advertised power as rssi@1m), integer RSSI, `raw` the unfiltered distance.
    static let legacy = """
        {"mac":"e8a1f3c09b2d","id":"iBeacon:2f234454-cf6d-4a0f-adf2-f4911ba9ffa6-1-2","idType":180,\
        "rssi@1m":-59,"rssi":-73,"raw":2.69,"distance":2.51,"var":0.12,"int":1017,"batt":86}
        """
    static let legacyTopic = "espresense/devices/iBeacon:2f234454-cf6d-4a0f-adf2-f4911ba9ffa6-1-2/kitchen"

    /// The parse error of `payload` on the current topic, or nil.
    func failure(_ payload: [UInt8], topic: String = Self.currentTopic) -> ESPresenseError? {
        do {
            _ = try ESPresenseReport.parse(topic: topic, payload: payload)
            return nil
        } catch {
            return error
        }
    }

    @Test func currentFirmwarePayload() throws {
        let r = try ESPresenseReport.parse(topic: Self.currentTopic, payload: Array(Self.current.utf8))
        #expect(r == ESPresenseReport(device: "irk:6f2c1b0e9a8d7c6b5a4f3e2d1c0b9a88", node: "upstairs_hallway",
                                      rssi: -78.5, rssiAt1m: -65, rxAdj: 20, rssiVariance: 3.42,
                                      mac: "5c2b1a7e9f10"))
        #expect(r.referencePowerDBm == -65)
    }

    @Test func legacyFirmwarePayload() throws {
        let r = try ESPresenseReport.parse(topic: Self.legacyTopic, payload: Array(Self.legacy.utf8))
        #expect(r.device == "iBeacon:2f234454-cf6d-4a0f-adf2-f4911ba9ffa6-1-2")
        #expect(r.node == "kitchen")
        #expect(r.rssi == -73 && r.rssiAt1m == -59 && r.mac == "e8a1f3c09b2d")
        #expect(r.rxAdj == nil && r.rssiVariance == nil)
        #expect(r.referencePowerDBm == -59)
    }

    /// The firmware's own distance, `10^((rssi@1m − rssi) / (10 · absorption))`, comes back from the published
    /// `rssi` and `referencePowerDBm` in both generations (absorption 2.7 in 4.x, 3.5 in 3.x); adding `rxAdj` to the
    /// reference, as if it were not yet applied, would put the S3 node's device 17 m away instead of 3.16 m.
    @Test func referencePowerReproducesTheFirmwareDistance() throws {
        for (topic, payload, absorption, published) in [(Self.currentTopic, Self.current, 2.7, 3.16),
                                                         (Self.legacyTopic, Self.legacy, 3.5, 2.51)] {
            let r = try ESPresenseReport.parse(topic: topic, payload: Array(payload.utf8))
            let reference = try #require(r.referencePowerDBm)
            let d = pow(10, (reference - r.rssi) / (10 * absorption))
            #expect(abs(d - published) < 0.005, "\(topic): \(d) m")
        }
        let r = try ESPresenseReport.parse(topic: Self.currentTopic, payload: Array(Self.current.utf8))
        let doubleCounted = pow(10, (r.referencePowerDBm! + r.rxAdj! - r.rssi) / 27)
        #expect(doubleCounted > 17)
    }

    @Test func nullsAndUnknownNestedKeysAreSkipped() throws {
        let payload = """
            {"rssi":-80.25,"rssi@1m":null,"mac":null,"rxAdj":null,"close":true,"future":{"a":[1,{"b":null}],"c":"d"},
             "irk":"00112233445566778899aabbccddeeff","mV":3012,"temp":21.50}
            """
        let r = try ESPresenseReport.parse(topic: "espresense/devices/name:tile-mate/den", payload: Array(payload.utf8))
        #expect(r == ESPresenseReport(device: "name:tile-mate", node: "den", rssi: -80.25))
        #expect(r.referencePowerDBm == nil)
    }

    @Test func topicsWithOtherPrefixes() throws {
        let r = try ESPresenseReport.parse(topic: "home/espresense/devices/phone:alice/office",
                                           payload: Array(#"{"rssi":-61}"#.utf8), prefix: "home/espresense")
        #expect(r.device == "phone:alice" && r.node == "office")
        #expect(failure(Array(#"{"rssi":-61}"#.utf8), topic: "home/espresense/devices/phone:alice/office")?.kind
            == .badTopic)
    }

    @Test func badTopicsAreRefused() {
        let payload = Array(#"{"rssi":-70}"#.utf8)
        for topic in ["espresense/devices/irk:ab", "espresense/devices/flora:c47c8d6a1b2c/kitchen/mi_flora",
                      "espresense/devices//kitchen", "espresense/devices/irk:ab/", "espresense/rooms/kitchen/status",
                      "espresensex/devices/irk:ab/kitchen", "bluedot/site/devices/irk:ab/kitchen", ""] {
            let e = failure(payload, topic: topic)
            #expect(e?.kind == .badTopic, "topic: \(topic)")
            #expect(e?.description == "\(topic): not a device topic espresense/devices/<device>/<node>")
        }
    }

    @Test func statusTopics() {
        #expect(ESPresenseReport.statusNode(topic: "espresense/rooms/kitchen/status") == "kitchen")
        #expect(ESPresenseReport.statusNode(topic: "espresense/rooms/back_stairs/status") == "back_stairs")
        #expect(ESPresenseReport.statusNode(topic: "home/espresense/rooms/den/status", prefix: "home/espresense")
            == "den")
        for topic in ["espresense/rooms/kitchen/telemetry", "espresense/rooms/*/status", "espresense/rooms//status",
                      "espresense/rooms/kitchen/status/x", "espresense/rooms/kitchen", "espresensex/rooms/a/status",
                      "espresense/devices/a/status", "home/espresense/rooms/den/status"] {
            #expect(ESPresenseReport.statusNode(topic: topic) == nil, "topic: \(topic)")
        }
    }

    @Test func goldenErrors() {
        let t = Self.currentTopic
        let cases: [(String, ESPresenseError.Kind, String)] = [
            ("", .malformedJSON, "\(t): malformed JSON: expected an object (column 1)"),
            ("[1, 2]", .malformedJSON, "\(t): malformed JSON: expected an object (column 1)"),
            (#"{"rssi":-70"#, .malformedJSON, "\(t): malformed JSON: unterminated object (column 12)"),
            (#"{"rssi":-70} x"#, .malformedJSON, "\(t): malformed JSON: unexpected text after the object (column 14)"),
            (#"{"rssi":"-70","#, .malformedJSON, "\(t): malformed JSON: expected a key in quotes (column 15)"),
            (#"{"rssi":"-70"}"#, .wrongType(field: "rssi"), "\(t): rssi: expected a number, got a string"),
            (#"{"rssi":-70,"rssi@1m":true}"#, .wrongType(field: "rssi@1m"),
             "\(t): rssi@1m: expected a number, got a boolean"),
            (#"{"rssi":-70,"rxAdj":[20]}"#, .wrongType(field: "rxAdj"), "\(t): rxAdj: expected a number, got an array"),
            (#"{"mac":12,"rssi":"x"}"#, .wrongType(field: "mac"), "\(t): mac: expected a string, got a number"),
            (#"{"id":"irk:ab","distance":2.1}"#, .missingField("rssi"), "\(t): rssi: missing"),
            (#"{"rssi":null}"#, .missingField("rssi"), "\(t): rssi: missing"),
            (#"{"rssi":NaN}"#, .outOfRange(field: "rssi"),
             "\(t): rssi: expected a finite number from -300 to 300, got nan"),
            (#"{"rssi":-70,"rssi@1m":1e400}"#, .outOfRange(field: "rssi@1m"),
             "\(t): rssi@1m: expected a finite number from -300 to 300, got inf"),
            (#"{"rssi":-7000}"#, .outOfRange(field: "rssi"),
             "\(t): rssi: expected a finite number from -300 to 300, got -7000.0"),
            (#"{"rssi":-70,"rssiVar":-1}"#, .outOfRange(field: "rssiVar"),
             "\(t): rssiVar: expected a finite number not below 0, got -1.0"),
        ]
        for (payload, kind, description) in cases {
            let e = failure(Array(payload.utf8))
            #expect(e?.kind == kind, "payload: \(payload)")
            #expect(e?.description == description, "payload: \(payload)")
        }
    }

    @Test func oversizedAndDeeplyNestedPayloadsThrow() {
        var big = Array(#"{"rssi":-70,"pad":""#.utf8)
        big += [UInt8](repeating: UInt8(ascii: "x"), count: ESPresenseReport.maximumPayloadBytes)
        big += Array(#""}"#.utf8)
        let e = failure(big)
        #expect(e?.kind == .oversized)
        #expect(e?.description == "\(Self.currentTopic): payload of \(big.count) bytes is larger than 16384")
        let deep = Array(#"{"rssi":-70,"x":"#.utf8) + [UInt8](repeating: UInt8(ascii: "["), count: 16_000)
        #expect(failure(deep)?.kind == .malformedJSON)
        #expect(failure(deep)?.detail == "malformed JSON: nesting deeper than 256 (column 272)")
    }

    /// Every truncation of both real payloads is refused, and seeded random corruption (byte flips, insertions,
    /// cuts) never crashes: each mangled payload either parses to a finite report or throws.
    @Test func truncatedAndCorruptedPayloadsNeverCrash() {
        for (topic, text) in [(Self.currentTopic, Self.current), (Self.legacyTopic, Self.legacy)] {
            let bytes = Array(text.utf8)
            for n in 0..<bytes.count {
                #expect(failure(Array(bytes[..<n]), topic: topic)?.kind == .malformedJSON, "first \(n) bytes")
            }
            var rng = SplitMix64(seed: 0xE5B_2026)
            var parsed = 0
            for _ in 0..<3000 {
                var mangled = bytes
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let i = Int.random(in: 0..<mangled.count, using: &rng)
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: mangled[i] = UInt8.random(in: 0...255, using: &rng)
                    case 1: mangled.insert(UInt8.random(in: 0...255, using: &rng), at: i)
                    default: mangled.removeSubrange(i..<min(mangled.count, i + Int.random(in: 1...8, using: &rng)))
                    }
                    if mangled.isEmpty { mangled = [0x7B] }
                }
                if let r = try? ESPresenseReport.parse(topic: topic, payload: mangled) {
                    #expect(r.rssi.isFinite && ESPresenseReport.plausibleDBm.contains(r.rssi))
                    parsed += 1
                }
            }
            // Some flips land in values or unknown keys and still parse; most break the object.
            #expect(parsed > 0 && parsed < 3000)
        }
    }
}
