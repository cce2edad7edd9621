import Testing

@testable import HCI

/// Beacon frames: byte vectors written from each specification, the iBeacon in the horizon74 fixture, round trips.
@Suite struct BeaconTests {
    @Test func decodesIBeaconFromFixtureScanResponse() throws {
        let beacons = Beacon.decode(fromAdvertisingData: ADStructureTests.horizonIBeaconData)
        #expect(beacons.count == 1)
        guard case let .iBeacon(frame) = try #require(beacons.first) else {
            Issue.record("expected iBeacon")
            return
        }
        // Proximity UUID is ASCII "INTELLI_ROCKS_HW", big-endian on the wire.
        #expect(frame.proximityUUID.description == "494e5445-4c4c-495f-524f-434b535f4857")
        #expect(frame.major == 0x5072 && frame.minor == 0xF2FF && frame.measuredPowerDBm == -62)
        #expect(beacons[0].type == "ibeacon")
        #expect(beacons[0].id == "ibeacon:494e5445-4c4c-495f-524f-434b535f4857:20594:62207")
        #expect(beacons[0].referencePowerDBm == -62 && beacons[0].measuredPowerAt1mDBm == -62)
    }

    /// Eddystone-UID per eddystone-uid/README.md: flags, 16-bit UUID list 0xFEAA, service data.
    static let eddystoneUIDAdvertisement: [UInt8] = [
        0x02, 0x01, 0x06,
        0x03, 0x03, 0xAA, 0xFE,
        0x17, 0x16, 0xAA, 0xFE, 0x00, 0xEE,  // frame 0x00, TX power -18 dBm at 0 m
        0xED, 0xD1, 0xEB, 0xEA, 0xC0, 0x4E, 0x5D, 0xEF, 0xA0, 0x17,  // namespace
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06,  // instance
        0x00, 0x00,  // RFU
    ]

    @Test func decodesEddystoneUID() throws {
        let beacons = Beacon.decode(fromAdvertisingData: Self.eddystoneUIDAdvertisement)
        #expect(beacons.count == 1)
        let beacon = try #require(beacons.first)
        #expect(beacon.type == "eddystone-uid")
        #expect(beacon.id == "eddystone:edd1ebeac04e5defa017:010203040506")
        #expect(beacon.referencePowerDBm == -18 && beacon.referenceDistanceMeters == 0)
        #expect(beacon.measuredPowerAt1mDBm == -59)
        #expect(try Beacon.advertisingData([beacon]) == Self.eddystoneUIDAdvertisement)
    }

    @Test func acceptsEddystoneUIDWithoutServiceListOrReservedBytes() {
        let bytes: [UInt8] = [
            0x15, 0x16, 0xAA, 0xFE, 0x00, 0x00,
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xA, 0xB, 0xC, 0xD, 0xE, 0xF,
        ]
        #expect(Beacon.decode(fromAdvertisingData: bytes).map(\.id) == ["eddystone:00010203040506070809:0a0b0c0d0e0f"])
    }

    @Test func decodesEddystoneURL() throws {
        // https://www. (0x01) "example" .com/ (0x00) "beacon" -> https://www.example.com/beacon
        let bytes: [UInt8] = [
            0x03, 0x03, 0xAA, 0xFE,
            0x14, 0x16, 0xAA, 0xFE, 0x10, 0xF4, 0x01,
            0x65, 0x78, 0x61, 0x6D, 0x70, 0x6C, 0x65, 0x00, 0x62, 0x65, 0x61, 0x63, 0x6F, 0x6E,
        ]
        let beacons = Beacon.decode(fromAdvertisingData: bytes)
        guard case let .eddystoneURL(frame) = try #require(beacons.first) else {
            Issue.record("expected Eddystone-URL, got \(beacons)")
            return
        }
        #expect(frame.url == "https://www.example.com/beacon" && frame.txPowerAt0mDBm == -12)
        #expect(beacons[0].id == nil && beacons[0].type == "eddystone-url")
        #expect(try frame.serviceData() == Array(bytes[8...]))
    }

    @Test func rejectsReservedEddystoneURLBytes() {
        #expect(throws: HCIDecodingError.self) { try EddystoneURL(serviceData: [0x10, 0x00, 0x04, 0x61]) }
        #expect(throws: HCIDecodingError.self) { try EddystoneURL(serviceData: [0x10, 0x00, 0x02, 0x61, 0x0E]) }
        #expect(throws: HCIDecodingError.self) { try EddystoneURL(txPowerAt0mDBm: 0, url: "ftp://x").serviceData() }
    }

    @Test func decodesEddystoneTLM() throws {
        // Version 0: 3000 mV, 23.5 °C (0x1780), 1000 PDUs, 3600.0 s (36000 deciseconds).
        let bytes: [UInt8] = [
            0x11, 0x16, 0xAA, 0xFE, 0x20, 0x00,
            0x0B, 0xB8, 0x17, 0x80, 0x00, 0x00, 0x03, 0xE8, 0x00, 0x00, 0x8C, 0xA0,
        ]
        let beacons = Beacon.decode(fromAdvertisingData: bytes)
        guard case let .eddystoneTLM(.unencrypted(t)) = try #require(beacons.first) else {
            Issue.record("expected plain Eddystone-TLM, got \(beacons)")
            return
        }
        #expect(t.batteryMillivolts == 3000 && t.advertisingPDUCount == 1000)
        #expect(t.temperatureCelsius == 23.5 && t.timeSinceBootSeconds == 3600)
        #expect(beacons[0].id == nil && beacons[0].type == "eddystone-tlm" && beacons[0].referencePowerDBm == nil)
        let unsupported = EddystoneTLM.Telemetry(
            batteryMillivolts: 0, temperatureRaw: EddystoneTLM.Telemetry.temperatureNotSupported,
            advertisingPDUCount: 0, timeSinceBootDeciseconds: 0)
        #expect(unsupported.temperatureCelsius == nil)
        #expect(EddystoneTLM.Telemetry(
            batteryMillivolts: 0, temperatureRaw: -384, advertisingPDUCount: 0, timeSinceBootDeciseconds: 0
        ).temperatureCelsius == -1.5)
    }

    @Test func keepsEncryptedTLMRaw() throws {
        let payload: [UInt8] = Array(0..<16)
        let frame = try EddystoneTLM(serviceData: ([0x20, 0x01] + payload)[...])
        #expect(frame == .encrypted(data: payload))
        #expect(throws: HCIDecodingError.self) { try EddystoneTLM(serviceData: [0x20, 0x02, 0x00]) }
    }

    /// AltBeacon per the AltBeacon Protocol Specification v1.0: company 0x0118 (Radius Networks), code 0xBEAC.
    static let altBeaconAdvertisement: [UInt8] = [
        0x1B, 0xFF, 0x18, 0x01, 0xBE, 0xAC,
        0x2F, 0x23, 0x44, 0x54, 0xCF, 0x6D, 0x4A, 0x0F, 0xAD, 0xF2, 0xF4, 0x91, 0x1B, 0xA9, 0xFF, 0xA6,  // id1
        0x00, 0x01, 0x00, 0x02,  // id2 = 1, id3 = 2
        0xC5, 0x00,  // reference RSSI -59 dBm, reserved
    ]

    @Test func decodesAltBeacon() throws {
        let beacons = Beacon.decode(fromAdvertisingData: Self.altBeaconAdvertisement)
        guard case let .altBeacon(frame) = try #require(beacons.first) else {
            Issue.record("expected AltBeacon, got \(beacons)")
            return
        }
        #expect(frame.companyID == 0x0118 && frame.referenceRSSIDBm == -59)
        #expect(beacons[0].id == "altbeacon:2f234454cf6d4a0fadf2f4911ba9ffa6:1:2")
        #expect(beacons[0].type == "altbeacon" && beacons[0].measuredPowerAt1mDBm == -59)
    }

    static let everyFrame: [Beacon] = [
        .iBeacon(
            IBeacon(
                proximityUUID: BluetoothUUID("f7826da6-4fa2-4e98-8024-bc5b71e0893e")!, major: 1, minor: 7,
                measuredPowerDBm: -59)),
        .eddystoneUID(try! EddystoneUID(txPowerAt0mDBm: -20, namespace: Array(1...10), instance: Array(11...16))),
        .eddystoneURL(EddystoneURL(txPowerAt0mDBm: -21, url: "http://goo.gl/S6zT6P")),
        .eddystoneURL(EddystoneURL(txPowerAt0mDBm: 4, url: "https://www.example.org/a.info")),
        .eddystoneTLM(
            .unencrypted(
                .init(
                    batteryMillivolts: 2950, temperatureRaw: -1, advertisingPDUCount: .max,
                    timeSinceBootDeciseconds: 7))),
        .eddystoneTLM(.encrypted(data: Array(repeating: 0xAB, count: 16))),
        .altBeacon(
            AltBeacon(
                companyID: 0xFFFF, id1: BluetoothUUID(high: .max, low: 0), id2: 65535, id3: 0,
                referenceRSSIDBm: -128, manufacturerReserved: 0x5A)),
    ]

    @Test(arguments: everyFrame)
    func roundTripsEachFrame(beacon: Beacon) throws {
        let bytes = try Beacon.advertisingData([beacon])
        #expect(Beacon.decode(fromAdvertisingData: bytes) == [beacon])
    }

    @Test func findsSeveralFramesInOneAdvertisement() throws {
        let frames = Array(Self.everyFrame[1...2]) + [Self.everyFrame[4]]
        let bytes = try Beacon.advertisingData(frames)
        #expect(Beacon.decode(fromAdvertisingData: bytes) == frames)
    }

    @Test func malformedLookalikesAreNotBeacons() {
        var ibeacon = ADStructureTests.horizonIBeaconData
        ibeacon[0] -= 1
        ibeacon.removeLast()  // one byte short of the declared 0x15
        #expect(Beacon.decode(fromAdvertisingData: ibeacon).isEmpty)
        var notApple = ADStructureTests.horizonIBeaconData
        notApple[2] = 0x4D
        #expect(Beacon.decode(fromAdvertisingData: notApple).isEmpty)
        #expect(Beacon.decode(fromAdvertisingData: [0x04, 0x16, 0xAA, 0xFE, 0x30]).isEmpty)  // EID: not decoded
    }
}
