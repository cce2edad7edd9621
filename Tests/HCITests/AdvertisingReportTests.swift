import Testing
@testable import HCI

/// Three legacy reports in one event, as Bumble 0.0.236 encodes them (`HCI_LE_Advertising_Report_Event`).
/// Wrapped in a btsnoop record, tshark 4.0.17 and `btmon -r` both read them report by report, as this module does:
/// 11:22:33:44:55:66 ADV_IND -40 dBm, C1:22:33:44:55:77 SCAN_RSP -100 dBm, AA:BB:CC:DD:EE:FF ADV_NONCONN_IND 0x7f.
let bumbleThreeLegacyReports: [UInt8] = [
    0x04, 0x3E, 0x27, 0x02, 0x03,
    0x00, 0x00, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x03, 0x02, 0x01, 0x06, 0xD8,
    0x04, 0x01, 0x77, 0x55, 0x44, 0x33, 0x22, 0xC1, 0x00, 0x9C,
    0x03, 0x00, 0xFF, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA, 0x04, 0x03, 0xFF, 0x4C, 0x00, 0x7F,
]

/// Two extended reports in one event, as Bumble 0.0.236 encodes them (`HCI_LE_Extended_Advertising_Report_Event`).
/// `btmon -r` reads the same fields (data status complete / incomplete, SID 0xff / 0x05, RSSI -50 / 0x7f).
let bumbleTwoExtendedReports: [UInt8] = [
    0x04, 0x3E, 0x39, 0x0D, 0x02,
    0x13, 0x00, 0x00, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x01, 0x00, 0xFF, 0x7F, 0xCE, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x02, 0x01, 0x06,
    0x20, 0x00, 0x01, 0x77, 0x55, 0x44, 0x33, 0x22, 0xC1, 0x03, 0x02, 0x05, 0xF8, 0x7F, 0x40, 0x06,
    0x01, 0x05, 0x04, 0x03, 0x02, 0x01, 0xD0, 0x04, 0x01, 0x02, 0x03, 0x04,
]

func packet(h4 bytes: [UInt8]) -> HCIPacket {
    HCIPacket(type: HCIPacketType(rawValue: bytes[0])!, bytes: Array(bytes.dropFirst()))
}

func extendedReport(_ status: AdvertisingDataStatus, sid: UInt8?, data: [UInt8]) -> AdvertisingReport {
    AdvertisingReport(eventType: .extended(AdvertisingEventProperties(connectable: true, dataStatus: status)),
                      addressType: .randomIdentity, address: BDAddress(rawValue: 0xD1_02_03_04_05_06),
                      rssiDBm: -88, txPowerDBm: 4, primaryPHY: .leCoded, secondaryPHY: .le2M, sid: sid,
                      periodicAdvertisingIntervalUnits: 0, directAddressType: .public, directAddress: .zero,
                      data: data[...])
}

@Suite struct AdvertisingReportTests {
    @Test func decodesThreeLegacyReportsLikeBumble() throws {
        guard case let .leMeta(.advertisingReport(event)) = try HCIEvent.decode(packet(h4: bumbleThreeLegacyReports)) else {
            Issue.record("not an LE Advertising Report")
            return
        }
        #expect(event.reports.count == 3)
        let (a, b, c) = (event.reports[0], event.reports[1], event.reports[2])
        #expect(a.eventType == .legacy(.advInd) && a.address.description == "11:22:33:44:55:66" && a.rssiDBm == -40)
        #expect(Array(a.data) == [0x02, 0x01, 0x06] && a.addressType == .public && a.isLegacy && !a.isScanResponse)
        #expect(b.isScanResponse && b.addressType == .random && b.data.isEmpty && b.rssiDBm == -100)
        #expect(c.eventType == .legacy(.advNonconnInd) && c.rssiDBm == nil && c.txPowerDBm == nil)
        #expect(c.address == BDAddress("aa:bb:cc:dd:ee:ff"))
        #expect(a.dataStatus == .complete && a.primaryPHY == .le1M && a.secondaryPHY == nil && a.sid == nil)
        #expect(HCIEvent.leMeta(.advertisingReport(event)).packet.h4Bytes == bumbleThreeLegacyReports)
    }

    @Test func decodesTwoExtendedReportsLikeBumble() throws {
        guard case let .leMeta(.extendedAdvertisingReport(event)) = try HCIEvent.decode(packet(h4: bumbleTwoExtendedReports)) else {
            Issue.record("not an LE Extended Advertising Report")
            return
        }
        #expect(event.reports.count == 2)
        let (a, b) = (event.reports[0], event.reports[1])
        #expect(a.isLegacy && a.eventType.isConnectable && !a.isScanResponse && a.eventType.legacyRawValue == 0x00)
        #expect(a.txPowerDBm == nil && a.rssiDBm == -50 && a.sid == nil && a.secondaryPHY == nil && a.dataStatus == .complete)
        #expect(!b.isLegacy && b.dataStatus == .incomplete && b.primaryPHY == .leCoded && b.secondaryPHY == .le2M)
        #expect(b.sid == 5 && b.txPowerDBm == -8 && b.rssiDBm == nil && b.periodicAdvertisingIntervalUnits == 0x0640)
        #expect(b.directAddressType == .random && b.directAddress == BDAddress("D0:01:02:03:04:05"))
        #expect(Array(b.data) == [1, 2, 3, 4])
        #expect(HCIEvent.leMeta(.extendedAdvertisingReport(event)).packet.h4Bytes == bumbleTwoExtendedReports)
    }

    @Test(arguments: [AdvertisingDataStatus.complete, .incomplete, .truncated])
    func extendedReportsRoundTripWithEachDataStatus(_ status: AdvertisingDataStatus) throws {
        let reports = [extendedReport(status, sid: 3, data: Array(0..<40)),
                       extendedReport(.complete, sid: nil, data: []),
                       extendedReport(status, sid: 15, data: [0xFF])]
        let event = HCIEvent.leMeta(.extendedAdvertisingReport(LEExtendedAdvertisingReportEvent(reports: reports)))
        let decoded = try HCIEvent.decode(event.packet)
        #expect(decoded == event)
        guard case let .leMeta(.extendedAdvertisingReport(back)) = decoded else { return }
        #expect(back.reports.map(\.dataStatus) == [status, .complete, status])
    }

    @Test func legacyReportsRoundTripTwoAndThree() throws {
        let base = AdvertisingReport(eventType: .legacy(.advScanInd), addressType: .public,
                                     address: BDAddress(rawValue: 0x0102_0304_0506), rssiDBm: -127, data: [0x02, 0x01, 0x04])
        var other = base
        other.eventType = .legacy(LegacyAdvertisingEventType(rawValue: 0x09))
        other.rssiDBm = 20
        other.data = Array(repeating: 0xAB, count: 31)[...]
        for reports in [[base, other], [other, base, base]] {
            let event = HCIEvent.leMeta(.advertisingReport(LEAdvertisingReportEvent(reports: reports)))
            #expect(try HCIEvent.decode(event.packet) == event)
            #expect(AdvertisingReportBatch.decode(event.packet) == AdvertisingReportBatch(
                reports: reports, declaredCount: reports.count, error: nil))
        }
    }

    @Test func eventTypeFlagsAndLegacyMapping() {
        let all: [LegacyAdvertisingEventType] = [.advInd, .advDirectInd, .advScanInd, .advNonconnInd, .scanRsp]
        for type in all {
            let properties = type.extendedProperties!
            #expect(properties.isLegacy)
            #expect(properties.legacyEventType == type)
            #expect(AdvertisingEventType.extended(properties).isScanResponse == (type == .scanRsp))
            // A legacy SCAN_RSP maps to "scan response to ADV_IND", whose connectable bit describes the ADV_IND.
            if type != .scanRsp {
                #expect(AdvertisingEventType.extended(properties).isConnectable == AdvertisingEventType.legacy(type).isConnectable)
            }
            #expect(AdvertisingEventType.extended(properties).isDirected == AdvertisingEventType.legacy(type).isDirected)
        }
        let truncated = AdvertisingEventProperties(rawValue: 0b100_0000)
        #expect(truncated.dataStatus == .truncated && !truncated.isLegacy && truncated.legacyEventType == nil)
        #expect(AdvertisingEventType.extended(truncated).legacyRawValue == 0xFF)
        #expect(LegacyAdvertisingEventType(rawValue: 7).description == "0x07")
    }

    @Test func malformedEntryKeepsTheEntriesBeforeIt() throws {
        // Three reports declared; the third's Data_Length runs past the end of the event.
        var bytes = bumbleThreeLegacyReports
        bytes[bytes.count - 6] = 0x09
        let batch = try #require(AdvertisingReportBatch.decode(packet(h4: bytes)))
        #expect(batch.reports.count == 2)
        #expect(batch.declaredCount == 3)
        #expect(batch.error == .truncated(field: "reports[2].Data", offset: 36, needed: 9, available: 5))
        #expect(throws: HCIDecodingError.self) { try HCIEvent.decode(packet(h4: bytes)) }

        var seen = 0
        let outcome = AdvertisingReportBatch.forEachReport(in: packet(h4: bytes)) { _ in seen += 1 }
        #expect(outcome?.count == 2 && seen == 2 && outcome?.error != nil)
    }

    @Test func trailingBytesAfterTheLastEntryAreReported() throws {
        var bytes = bumbleThreeLegacyReports
        bytes[4] = 0x02
        let batch = try #require(AdvertisingReportBatch.decode(packet(h4: bytes)))
        #expect(batch.reports.count == 2)
        #expect(batch.error == .trailingBytes(type: "LE Advertising Report", count: 14))
    }

    @Test func otherPacketsAreNotReportBatches() {
        #expect(AdvertisingReportBatch.decode(ResetCommand().packet) == nil)
        #expect(AdvertisingReportBatch.decode(HCIPacket(type: .event, bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])) == nil)
        #expect(AdvertisingReportBatch.decode(HCIPacket(type: .event, bytes: [0x3E, 0x02, 0x14, 0x00])) == nil)
        #expect(AdvertisingReportBatch.decode(HCIPacket(type: .event, bytes: [0x3E]))?.error
            == .truncated(field: "Parameter_Total_Length", offset: 1, needed: 1, available: 0))
    }

    @Test func addressPrintsMostSignificantFirstAndParses() throws {
        let address = try #require(BDAddress(littleEndianBytes: [0xFF, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA]))
        #expect(address.description == "AA:BB:CC:DD:EE:FF")
        #expect(BDAddress("aa:bb:cc:dd:ee:ff") == address)
        #expect(BDAddress("AA-BB-CC-DD-EE-FF") == address)
        #expect(address.littleEndianBytes == [0xFF, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA])
        #expect(BDAddress("AA:BB:CC:DD:EE") == nil)
        #expect(BDAddress("AA:BB:CC:DD:EE:FG") == nil)
        #expect(BDAddress("AAA:B:CC:DD:EE:FF") == nil)
        #expect(BDAddressType(rawValue: 0x07).description == "0x7" && !BDAddressType(rawValue: 0x07).isKnown)
        #expect(BDAddressType.anonymous.description == "anonymous" && BDAddressType.anonymous.isKnown)
    }
}
