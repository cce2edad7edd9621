import Devices
import Formats
import Foundation
import HCI
import Testing

@Suite struct ImportTests {
    /// An LE device's `info` as BlueZ 5.66 writes it after pairing a phone: the IRK the phone handed over (the Core
    /// Specification's sample key ec0234…9b), least significant byte first.
    static let phoneInfo = """
        [General]
        Name=Alice's iPhone
        AddressType=public
        SupportedTechnologies=LE;
        Trusted=false
        Blocked=false
        WakeAllowed=true
        Services=00001800-0000-1000-8000-00805f9b34fb;00001801-0000-1000-8000-00805f9b34fb;

        [IdentityResolvingKey]
        Key=9B7D390AA610103405ADC857A33402EC

        [PeripheralLongTermKey]
        Key=1F2E3D4C5B6A79881F2E3D4C5B6A7988
        Authenticated=2
        EncSize=16
        EDiv=0
        Rand=0

        [ConnectionParameters]
        MinInterval=24
        MaxInterval=40
        Latency=0
        Timeout=420

        """

    /// A keyboard paired with legacy pairing: a long-term key, no IRK.
    static let keyboardInfo = """
        [General]
        Name=MX Keys
        AddressType=static
        SupportedTechnologies=LE;
        Trusted=true
        Blocked=false

        [LongTermKey]
        Key=00112233445566778899AABBCCDDEEFF
        Authenticated=0
        EncSize=16
        EDiv=4660
        Rand=22136

        """

    @Test func bluezKeysAreReversedIntoTheCoreSpecificationsOrder() throws {
        let address = try #require(BDAddress("F0:99:B6:12:34:56"))
        let entry = try BlueZKeys.parseInfo(Self.phoneInfo, address: address, file: "info")
        #expect(entry.irk?.hex == "ec0234a357c8ad05341010a60a397d9b")
        #expect(entry.name == "Alice's iPhone" && entry.addressType == "public")
        // BlueZ's 0x prefix is read too.
        let prefixed = Self.phoneInfo.replacingOccurrences(of: "Key=9B7D", with: "Key=0x9B7D")
        #expect(try BlueZKeys.parseInfo(prefixed, address: address, file: "info").irk == entry.irk)
        // And what BlueZ would resolve with is what the registry resolves with: the sample RPA.
        #expect(PrivateAddress.resolves(try #require(BDAddress("70:81:94:0D:FB:AA")), with: try #require(entry.irk)))
    }

    @Test func aBadBlueZKeyNamesTheFileAndLine() {
        let bad = Self.phoneInfo.replacingOccurrences(of: "Key=9B7D390AA610103405ADC857A33402EC", with: "Key=9B7D")
        #expect(throws: DeviceRegistryError(file: "info", line: 11, field: "[IdentityResolvingKey] Key",
                                            message: "expected 32 hex digits, got \"9B7D\"")) {
            try BlueZKeys.parseInfo(bad, address: .zero, file: "info")
        }
    }

    @Test func aBlueZFolderImportsEveryPairedDevice() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("bluez-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let adapter = root + "/00:1A:7D:DA:71:13"
        for (device, info) in [("F0:99:B6:12:34:56", Self.phoneInfo), ("C4:4F:33:AA:BB:CC", Self.keyboardInfo)] {
            try FileManager.default.createDirectory(atPath: adapter + "/" + device, withIntermediateDirectories: true)
            try info.write(toFile: adapter + "/" + device + "/info", atomically: true, encoding: .utf8)
        }
        try FileManager.default.createDirectory(atPath: adapter + "/cache", withIntermediateDirectories: true)
        try "[General]\nName=x\n".write(toFile: adapter + "/settings", atomically: true, encoding: .utf8)
        for dir in [root, adapter] {
            let read = try BlueZKeys.read(directory: dir)
            let devices = BlueZKeys.devices(read.entries)
            #expect(devices.map(\.id) == ["mx-keys", "alice-s-iphone"])
            #expect(devices[1].irks.map(\.hex) == ["ec0234a357c8ad05341010a60a397d9b"])
            #expect(devices[0].irks.isEmpty && devices[0].addresses == [BDAddress("C4:4F:33:AA:BB:CC")!],
                    "without an IRK, by its identity address")
            #expect(read.notes.count == 1 && read.notes[0].contains("no IdentityResolvingKey"))
            let text = DeviceRegistryWriter.text(try DeviceRegistry(devices: devices))
            #expect(try DeviceRegistryFile.parse(Array(text.utf8), file: "out").devices == devices)
        }
        #expect(throws: DeviceRegistryError.self) { try BlueZKeys.read(directory: root + "/missing") }
    }

    /// The `devices` of an ESPresense-companion configuration, as its example file writes them.
    static let companion = """
        mqtt:
          host: broker.lan
        floors:
          - id: ground
            name: Ground
        devices:
          - name: "Alice's iPhone"
            id: "irk:ec0234a357c8ad05341010a60a397d9b"
          - name: Keys
            id: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-7"
          - name: Forklift
            id: forklift7
          - id: "phone:*"
        exclude_devices:
          - id: "tile:*"
        """

    @Test func espresenseDevicesKeepTheirIdsAndKeys() throws {
        let entries = try ESPresenseConfigDevices.parse(Array(Self.companion.utf8), file: "config.yaml")
        #expect(entries.map(\.id) == ["irk:ec0234a357c8ad05341010a60a397d9b",
                                      "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-7", "forklift7", "phone:*"])
        let (devices, notes) = try ESPresenseDevices.devices(entries, file: "config.yaml")
        #expect(devices.map(\.id) == ["alice-s-iphone", "keys", "forklift"])
        #expect(devices[0].irks.map(\.hex) == ["ec0234a357c8ad05341010a60a397d9b"], "ESPresense's order is the registry's")
        #expect(devices[1].beacons == ["ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7"])
        #expect(devices[2].espresense == ["forklift7"])
        #expect(notes == [#"config.yaml:13: devices[3]: "phone:*" is a pattern, not one device; skipped"#])
        // The imported key resolves the sample RPA, and ESPresense's id of it maps to the same device.
        let ids = try #require(DeviceIdentifier(registry: try DeviceRegistry(devices: devices)))
        #expect(ids.identify(address: BDAddress("70:81:94:0D:FB:AA")!, type: .random, beaconID: nil, at: 0)
            == .device("alice-s-iphone"))
        #expect(ids.identify(reportedID: "irk:ec0234a357c8ad05341010a60a397d9b") == .device("alice-s-iphone"))
    }

    @Test func espresenseMistakesNameTheLine() throws {
        let noID = "devices:\n  - name: x\n"
        #expect(throws: ESPresenseConfigError.self) { try ESPresenseConfigDevices.parse(Array(noID.utf8), file: "c.yaml") }
        let badIRK = try ESPresenseConfigDevices.parse(Array("devices:\n  - id: irk:abc\n".utf8), file: "c.yaml")
        #expect(throws: DeviceRegistryError(file: "c.yaml", line: 2, field: "devices[0].id",
                                            message: "an irk: id needs 32 hex digits, got \"irk:abc\"")) {
            try ESPresenseDevices.devices(badIRK, file: "c.yaml")
        }
    }
}
