import Foundation
import Testing

@testable import HCI

/// The incremental btsnoop decoder on the real horizon74 recording (datalink 1002), fed in many ways.
@Suite struct BtsnoopDecoderTests {
    /// The bytes of `Fixtures/horizon74_legacy_adv_btsnoop_hci.log`.
    static func fixture() throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/horizon74_legacy_adv_btsnoop_hci.log")
        return [UInt8](try Data(contentsOf: url))
    }

    /// Feeds `chunks` in order, then finishes; returns every record and the error, if any.
    static func decode(_ chunks: some Sequence<ArraySlice<UInt8>>) -> ([BtsnoopRecord], BtsnoopError?) {
        var decoder = BtsnoopDecoder()
        var records = [BtsnoopRecord]()
        do {
            for chunk in chunks {
                decoder.append(chunk)
                while let record = try decoder.next() { records.append(record) }
            }
            decoder.finish()
            while let record = try decoder.next() { records.append(record) }
            return (records, nil)
        } catch {
            return (records, error)
        }
    }

    @Test func readsWholeFixture() throws {
        let bytes = try Self.fixture()
        #expect(bytes.count == 123_160)
        var decoder = BtsnoopDecoder()
        decoder.append(bytes)
        decoder.finish()
        var records = [BtsnoopRecord]()
        while let record = try decoder.next() { records.append(record) }
        #expect(decoder.datalink == .h4)
        #expect(records.count == 2572)  // horizon74.SOURCE.txt, counted with tshark
        #expect(records.map(\.number) == Array(1...2572))
        let first = try #require(records.first)
        #expect(first.packet == HCIPacket(type: .command, bytes: [0x03, 0x0C, 0x00]))  // HCI_Reset
        #expect(first.direction == .hostToController && first.byteOffset == 16)
        // Recorded 2021-02-01 (UTC), 147 s long.
        let start = 1_612_137_600.0
        #expect(first.unixSeconds >= start && first.unixSeconds < start + 86_400)
        let duration = records.last!.unixSeconds - first.unixSeconds
        #expect(abs(duration - 147) < 1, "duration \(duration) s, tolerance 1 s")
        #expect(records.last!.byteOffset + 24 + Int(records.last!.originalLength) == bytes.count)
    }

    @Test func countsAdvertisingReportsAsTsharkDoes() throws {
        let (records, error) = Self.decode([try Self.fixture()[...]])
        #expect(error == nil)
        var reports = 0
        for record in records {
            guard let packet = record.packet, packet.type == .event, packet.bytes.count > 3,
                packet.bytes[0] == 0x3E, packet.bytes[2] == 0x02
            else { continue }
            #expect(record.direction == .controllerToHost)
            reports += Int(packet.bytes[3])
        }
        #expect(reports == 412)  // horizon74.SOURCE.txt: 412 LE Advertising Reports
    }

    @Test func byteByByteGivesSameRecords() throws {
        let bytes = try Self.fixture()
        let (whole, _) = Self.decode([bytes[...]])
        let (single, error) = Self.decode(bytes.indices.lazy.map { bytes[$0...$0] })
        #expect(error == nil)
        #expect(single == whole)
    }

    @Test(arguments: [1 as UInt64, 2, 3, 0xB7_5300])
    func seededRandomSplitsGiveSameRecords(seed: UInt64) throws {
        let bytes = try Self.fixture()
        let (whole, _) = Self.decode([bytes[...]])
        var rng = ADRoundTripTests.SeededGenerator(seed: seed)
        var chunks = [ArraySlice<UInt8>]()
        var k = 0
        while k < bytes.count {
            let n = min(bytes.count - k, Int.random(in: 0...300, using: &rng))
            chunks.append(bytes[k..<(k + n)])
            k += n
        }
        let (split, error) = Self.decode(chunks)
        #expect(error == nil)
        #expect(split == whole)
    }

    @Test func writerOutputReadsBack() throws {
        let packets: [(HCIPacket, HCIDirection)] = [
            (HCIPacket(type: .command, bytes: [0x03, 0x0C, 0x00]), .hostToController),
            (HCIPacket(type: .event, bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]), .controllerToHost),
            (HCIPacket(type: .acl, bytes: [0x40, 0x20, 0x01, 0x00, 0xAA]), .controllerToHost),
            (HCIPacket(type: .acl, bytes: [0x40, 0x00, 0x00, 0x00]), .hostToController),
            (HCIPacket(type: .sco, bytes: [0x01, 0x00, 0x00]), .hostToController),
            (HCIPacket(type: .iso, bytes: [0x01, 0x00, 0x00, 0x00]), .controllerToHost),
        ]
        var file = BtsnoopWriter.fileHeader()
        for (k, (packet, direction)) in packets.enumerated() {
            let time = BtsnoopTimestamp(unixSeconds: 1_700_000_000.25 + Double(k))
            file += BtsnoopWriter.record(packet, direction: direction, timestamp: time)
        }
        let (records, error) = Self.decode([file[...]])
        #expect(error == nil)
        #expect(records.map(\.packet) == packets.map(\.0))
        #expect(records.map(\.direction) == packets.map(\.1))
        #expect(records.map(\.flags) == [2, 3, 1, 0, 0, 1])
        #expect(records.map(\.timestamp.unixMicroseconds) == (0..<6).map { 1_700_000_000_250_000 + $0 * 1_000_000 })
        #expect(abs(records[0].unixSeconds - 1_700_000_000.25) < 1e-6, "tolerance 1 µs")
    }

    @Test func timestampEpochMatchesBlueZ() {
        #expect(BtsnoopTimestamp(unixMicroseconds: 0).microsecondsSinceYear0 == 0x00DC_DDB3_0F2F_8000)
        #expect(BtsnoopTimestamp(microsecondsSinceYear0: 0x00DC_DDB3_0F2F_8000 + 1_500_000).unixSeconds == 1.5)
    }
}
