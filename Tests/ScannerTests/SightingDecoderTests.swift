import HCI
import Testing
@testable import Scanner

/// The pure packet-to-sightings step.
@Suite struct SightingDecoderTests {
    /// An LE Advertising Report event declaring 3 entries whose 2nd claims 255 data bytes that are not there.
    static func threeEntriesSecondMalformed() -> HCIPacket {
        var entries = ByteWriter()
        entries.u8(3)
        Fixture.report(rssi: -61).encodeLegacy(into: &entries)
        entries.u8(LegacyAdvertisingEventType.advNonconnInd.rawValue)
        entries.u8(BDAddressType.public.rawValue)
        BDAddress("11:22:33:44:55:66")!.encode(into: &entries)
        entries.u8(0xFF)  // Data_Length: far more than follows
        Fixture.report(rssi: -63).encodeLegacy(into: &entries)
        var event = ByteWriter()
        event.u8(LEMetaEvent.code)
        event.u8(UInt8(entries.bytes.count + 1))
        event.u8(LEAdvertisingReportEvent.subevent)
        event.append(entries.bytes)
        return HCIPacket(type: .event, bytes: event.bytes)
    }

    @Test func malformedSecondEntryGivesFirstAndCountsOne() {
        var decoder = SightingDecoder()
        let sightings = decoder.decode(Self.threeEntriesSecondMalformed(), timestamp: 5)
        #expect(sightings.count == 1)
        #expect(sightings.first?.rssiDBm == -61)
        #expect(decoder.statistics.malformed == 1)
        #expect(decoder.statistics.advertisingReports == 1)
        let next = decoder.decode(Fixture.advertisingEvent([Fixture.report()]), timestamp: 6)
        #expect(next.count == 1)
        #expect(decoder.statistics.packets == 2)
        #expect(decoder.statistics.events == 2)
    }

    @Test func everyEntryOfAMultiReportEventIsASighting() {
        var decoder = SightingDecoder()
        let plain = AdvertisingReport(
            eventType: .legacy(.advInd), addressType: .public, address: BDAddress("AA:BB:CC:DD:EE:0F")!, rssiDBm: nil,
            data: [0x02, 0x0A, 0xF4][...])  // TX Power Level -12 dBm
        let sightings = decoder.decode(Fixture.advertisingEvent([Fixture.report(), plain]), timestamp: 7)
        #expect(sightings.count == 2)
        #expect(sightings[0].id == "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7")
        #expect(sightings[1].id == "mac:aa:bb:cc:dd:ee:0f")
        #expect(sightings[1].beacon == nil)
        #expect(sightings[1].rssiDBm == nil)
        #expect(sightings[1].txPowerDBm == -12)
        #expect(decoder.statistics.beaconsByType == ["ibeacon": 1])
    }

    @Test func beaconWithAnIDWinsOverTelemetryInTheSameData() throws {
        let uid = try EddystoneUID(txPowerAt0mDBm: -20, namespace: Array(0..<10), instance: Array(0..<6))
        let tlm = EddystoneTLM.unencrypted(.init(
            batteryMillivolts: 3000, temperatureRaw: 0x1680, advertisingPDUCount: 1, timeSinceBootDeciseconds: 1))
        let plainTLM = Sighting(report: Fixture.report(beacons: [.eddystoneTLM(tlm)]), timestamp: 0)
        #expect(plainTLM.id == "mac:c0:ff:ee:00:00:01")
        #expect(plainTLM.beacon?.type == "eddystone-tlm")
        let both = Sighting(report: Fixture.report(beacons: [.eddystoneTLM(tlm), .eddystoneUID(uid)]), timestamp: 0)
        #expect(both.id == "eddystone:00010203040506070809:000102030405")
        #expect(both.beacon?.type == "eddystone-uid")
    }

    @Test func extendedReportKeepsTxPowerAndDataStatus() {
        var decoder = SightingDecoder()
        let report = AdvertisingReport(
            eventType: .extended(AdvertisingEventProperties(rawValue: 1 << 5)), addressType: .random,
            address: Fixture.address, rssiDBm: -80, txPowerDBm: 4, secondaryPHY: .le2M, sid: 1,
            data: try! Beacon.advertisingData([Fixture.iBeacon])[...])
        let packet = HCIEvent.leMeta(.extendedAdvertisingReport(LEExtendedAdvertisingReportEvent(reports: [report]))).packet
        let sightings = decoder.decode(packet, timestamp: 8)
        #expect(sightings.first?.txPowerDBm == 4)
        #expect(sightings.first?.dataStatus == .incomplete)
    }

    @Test func commandsAndOtherEventsAreCountedButGiveNothing() {
        var decoder = SightingDecoder()
        #expect(decoder.decode(ResetCommand().packet, timestamp: 0).isEmpty)
        let complete = HCIEvent.commandComplete(
            CommandCompleteEvent(numHCICommandPackets: 1, opcode: ResetCommand.opcode, returnParameters: [0])).packet
        #expect(decoder.decode(complete, timestamp: 0).isEmpty)
        #expect(decoder.statistics.packets == 2)
        #expect(decoder.statistics.events == 1)
        #expect(decoder.statistics.malformed == 0)
    }
}
