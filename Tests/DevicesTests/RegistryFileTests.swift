import Devices
import HCI
import Testing

@Suite struct RegistryFileTests {
    static func parse(_ text: String) throws(DeviceRegistryError) -> DeviceRegistry {
        try DeviceRegistryFile.parse(Array(text.utf8), file: "devices.json")
    }

    static func error(_ text: String) -> String {
        do {
            _ = try parse(text)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    /// The example of the shared formats document ("Devices").
    @Test func readsTheFormatsExample() throws {
        let registry = try Self.parse("""
            {"devices": [
              {"id": "alice-phone", "name": "Alice's phone", "irk": "ec0234a357c8ad05341010a60a397d9b"},
              {"id": "keys", "name": "Keys", "ibeacon": "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7"},
              {"id": "forklift-7", "name": "Forklift 7", "address": "c0:11:22:33:44:55", "espresense": "forklift7"}
            ]}
            """)
        #expect(registry.devices.map(\.id) == ["alice-phone", "keys", "forklift-7"])
        #expect(registry.device(id: "alice-phone")?.irks.first?.hex == "ec0234a357c8ad05341010a60a397d9b")
        #expect(registry.device(id: "keys")?.beacons == ["ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7"])
        #expect(registry.device(id: "forklift-7")?.addresses == [BDAddress("C0:11:22:33:44:55")!])
        #expect(registry.device(id: "forklift-7")?.espresense == ["forklift7"])
        #expect(registry.names == ["alice-phone": "Alice's phone", "keys": "Keys", "forklift-7": "Forklift 7"])
    }

    @Test func identitiesMayBeListsAndBeaconIdsAreMadeCanonical() throws {
        let registry = try Self.parse("""
            {"devices": [{"id": "tag_2", "ibeacon": ["IBEACON:F7826DA6-4FA2-4E98-8024-BC5B71E0893E:01:7"],
              "altbeacon": "altbeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:3:4",
              "espresense": ["irk:ec0234a357c8ad05341010a60a397d9b", "Tag2"]}]}
            """)
        let d = try #require(registry.device(id: "tag_2"))
        #expect(d.name == "tag_2", "the name defaults to the id")
        #expect(d.beacons == ["ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7",
                              "altbeacon:f7826da64fa24e988024bc5b71e0893e:3:4"])
        #expect(d.irks.map(\.hex) == ["ec0234a357c8ad05341010a60a397d9b"], "an irk: ESPresense id is the IRK")
        #expect(d.espresense == ["tag2"])
    }

    @Test func aBadIRKNamesTheFileAndTheField() {
        #expect(Self.error(#"{"devices": [{"id": "a", "irk": "ec0234a357c8ad05341010a60a397d9"}]}"#)
            == #"devices.json: devices[0].irk: expected 32 hex digits (16 bytes, most significant first), got "ec0234a357c8ad05341010a60a397d9""#)
        #expect(Self.error(#"{"devices": [{"id": "a"}, {"id": "b", "irk": 7}]}"#)
            == "devices.json: devices[1].irk: expected a string or a list of strings, got a number")
    }

    @Test func aDuplicateIdNamesBothPlaces() {
        #expect(Self.error(#"{"devices": [{"id": "keys"}, {"id": "bag"}, {"id": "keys"}]}"#)
            == #"devices.json: devices[2].id: duplicate id "keys" (first at devices[0])"#)
    }

    @Test func anUnknownFieldStopsTheLoad() {
        #expect(Self.error(#"{"devices": [{"id": "a", "irks": "ec0234a357c8ad05341010a60a397d9b"}]}"#).hasPrefix(
            "devices.json: devices[0].irks: unknown field (a device has address, altbeacon, eddystone, espresense, ibeacon, id, irk, name)"))
        #expect(Self.error(#"{"devices": [], "version": 1}"#)
            == "devices.json: version: unknown field (a registry has devices)")
    }

    @Test func otherMistakesAreNamed() {
        #expect(Self.error(#"{"devices": [{"id": "Alice"}]}"#)
            == #"devices.json: devices[0].id: "Alice" is not an id: lower-case letters, digits, - and _"#)
        #expect(Self.error(#"{"devices": [{"name": "x"}]}"#) == "devices.json: devices[0].id: missing")
        #expect(Self.error(#"{"devices": [{"id": "a", "address": "c0:11:22"}]}"#)
            == #"devices.json: devices[0].address: expected an address AA:BB:CC:DD:EE:FF, got "c0:11:22""#)
        #expect(Self.error(#"{"devices": [{"id": "a", "ibeacon": "eddystone:00112233445566778899:aabbccddeeff"}]}"#)
            .hasPrefix("devices.json: devices[0].ibeacon: expected ibeacon:"))
        #expect(Self.error(#"{"devices": [{"id": "a", "espresense": "x"}, {"id": "b", "espresense": "X"}]}"#)
            == #"devices.json: devices[1].espresense: x already belongs to "a""#)
        #expect(Self.error("{\"devices\": [\n  {\"id\": \"a\",}\n]}").hasPrefix("devices.json:2:"))
        #expect(Self.error(#"{"things": []}"#).hasPrefix("devices.json: things: unknown field"))
        #expect(Self.error(#"{}"#) == "devices.json: devices: missing")
    }

    @Test func theWriterWritesWhatTheReaderReads() throws {
        let registry = try Self.parse("""
            {"devices": [{"id": "a", "name": "A \\"quoted\\"", "irk": ["ec0234a357c8ad05341010a60a397d9b",
              "00112233445566778899aabbccddeeff"], "eddystone": "eddystone:00112233445566778899:aabbccddeeff",
              "address": "C0:11:22:33:44:55", "espresense": "alias"}]}
            """)
        let text = DeviceRegistryWriter.text(registry)
        #expect(try Self.parse(text) == registry)
        #expect(DeviceRegistryWriter.text(.empty) == "{\"devices\": [\n]}\n")
    }
}
