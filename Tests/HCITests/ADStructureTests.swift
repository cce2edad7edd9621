import Testing

@testable import HCI

/// AD structure parsing on real-world-shaped data (Core Spec 5.4, Vol 3, Part C, §11; CSS v11, Part A, §1).
@Suite struct ADStructureTests {
    /// The scan response of a Telink beacon (a4:c1:38:bf:6f:ab) in record 134 of the horizon74 fixture, as tshark
    /// shows it: one Manufacturer Specific Data structure holding an iBeacon frame.
    static let horizonIBeaconData: [UInt8] = [
        0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15,
        0x49, 0x4E, 0x54, 0x45, 0x4C, 0x4C, 0x49, 0x5F, 0x52, 0x4F, 0x43, 0x4B, 0x53, 0x5F, 0x48, 0x57,
        0x50, 0x72, 0xF2, 0xFF, 0xC2,
    ]

    @Test func parsesManufacturerDataFromFixture() {
        let list = ADStructureList(parsing: Self.horizonIBeaconData)
        #expect(list.errors.isEmpty)
        #expect(list.structures.count == 1)
        guard case let .manufacturerData(company, data) = list.structures.first else {
            Issue.record("expected manufacturer data, got \(list.structures)")
            return
        }
        #expect(company == 0x004C)
        #expect(data.count == 23)
        #expect(data.prefix(2) == [0x02, 0x15])
    }

    @Test func parsesTypicalAdvertisement() {
        // Flags LE General Discoverable + BR/EDR not supported; complete 16-bit UUIDs 0x180F, 0xFEAA;
        // complete name "Bé" (UTF-8); TX power -8 dBm; service data 0x180F = 0x64; then zero padding.
        let bytes: [UInt8] = [
            0x02, 0x01, 0x06,
            0x05, 0x03, 0x0F, 0x18, 0xAA, 0xFE,
            0x04, 0x09, 0x42, 0xC3, 0xA9,
            0x02, 0x0A, 0xF8,
            0x04, 0x16, 0x0F, 0x18, 0x64,
            0x00, 0x00, 0x00,
        ]
        let list = ADStructureList(parsing: bytes)
        #expect(list.errors.isEmpty)
        #expect(
            list.structures == [
                .flags([.leGeneralDiscoverable, .brEdrNotSupported]),
                .serviceUUIDs16(complete: true, uuids: [0x180F, 0xFEAA]),
                .localName(complete: true, name: "Bé"),
                .txPowerLevel(dBm: -8),
                .serviceData16(uuid: 0x180F, data: [0x64]),
            ])
        #expect(list.localName == "Bé")
        #expect(list.txPowerLevelDBm == -8)
        #expect(list.flags == [.leGeneralDiscoverable, .brEdrNotSupported])
        #expect(list.serviceUUIDs16 == [0x180F, 0xFEAA])
    }

    @Test func decodes128BitUUIDsLittleEndian() throws {
        // 0000180d-0000-1000-8000-00805f9b34fb (Heart Rate on the base UUID) sent little-endian.
        let uuid = BluetoothUUID(shortUUID: 0x180D)
        #expect(uuid.description == "0000180d-0000-1000-8000-00805f9b34fb")
        let bytes: [UInt8] = [0x11, 0x07] + uuid.littleEndianBytes
        #expect(bytes[2] == 0xFB && bytes[17] == 0x00)
        let list = ADStructureList(parsing: bytes)
        #expect(list.structures == [.serviceUUIDs128(complete: true, uuids: [uuid])])
    }

    @Test func overrunKeepsEarlierStructuresAndReportsError() {
        let bytes: [UInt8] = [0x02, 0x01, 0x06, 0x05, 0x09, 0x41, 0x42]
        let list = ADStructureList(parsing: bytes)
        #expect(list.structures == [.flags([.leGeneralDiscoverable, .brEdrNotSupported])])
        #expect(list.errors == [.truncated(field: "AD structure at byte 3", offset: 4, needed: 5, available: 3)])

        var reader = ADElementReader(bytes)
        #expect((try? reader.next())?.map(\.type) == .flags)
        #expect(throws: HCIDecodingError.self) { try reader.next() }
        #expect((try? reader.next()) == .some(nil))
    }

    @Test func malformedKnownTypeIsKeptRawAndParsingGoesOn() {
        let bytes: [UInt8] = [0x04, 0x03, 0x0F, 0x18, 0xAA, 0x03, 0x0A, 0x01, 0x02, 0x02, 0x01, 0x04]
        let list = ADStructureList(parsing: bytes)
        #expect(
            list.structures == [
                .other(type: .completeServiceUUIDs16, data: [0x0F, 0x18, 0xAA]),
                .other(type: .txPowerLevel, data: [0x01, 0x02]),
                .flags(.brEdrNotSupported),
            ])
        #expect(list.errors.count == 2)
    }

    @Test func unknownTypeIsKeptRaw() throws {
        let bytes: [UInt8] = [0x03, 0x19, 0x40, 0x02]  // Appearance 0x0240, not decoded here
        let list = ADStructureList(parsing: bytes)
        #expect(list.structures == [.other(type: ADType(rawValue: 0x19), data: [0x40, 0x02])])
        #expect(try list.encoded() == bytes)
    }

    @Test func readerWorksOnSlicesWithOffsetsFromSliceStart() throws {
        let buffer: [UInt8] = [0xEE, 0xEE, 0x02, 0x0A, 0x7F]
        var reader = ADElementReader(buffer[2...])
        let element = try #require(try reader.next())
        #expect(element.type == .txPowerLevel && element.offset == 0 && Array(element.data) == [0x7F])
        #expect(try reader.next() == nil)
    }

    @Test func uuidParsesAndPrints() throws {
        let text = "F7826DA6-4FA2-4E98-8024-BC5B71E0893E"
        let uuid = try #require(BluetoothUUID(text))
        #expect(uuid.description == text.lowercased())
        #expect(BluetoothUUID("f7826da64fa24e988024bc5b71e0893e") == uuid)
        #expect(BluetoothUUID("f7826da6-4fa2-4e98-8024-bc5b71e0893") == nil)
        #expect(BluetoothUUID("f7826da6-4fa24-e98-8024-bc5b71e0893e") == nil)
        #expect(try BluetoothUUID(bigEndianBytes: uuid.bigEndianBytes) == uuid)
        #expect(try BluetoothUUID(littleEndianBytes: uuid.littleEndianBytes) == uuid)
        #expect(uuid.bigEndianBytes.first == 0xF7)
    }
}
