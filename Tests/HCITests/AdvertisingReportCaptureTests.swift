import Foundation
import Testing
@testable import HCI

/// The smallest btsnoop walker the capture test needs (RFC 1761 layout, datalink 1002 = H4). The module's own
/// btsnoop reader replaces it once both branches are merged.
func h4Records(ofBtsnoop bytes: [UInt8]) throws -> [[UInt8]] {
    var reader = ByteReader(bytes)
    let magic = try reader.bytes(8, "btsnoop identification")
    #expect(Array(magic) == Array("btsnoop\0".utf8))
    _ = try reader.u32BigEndian("version")
    #expect(try reader.u32BigEndian("datalink") == 1002)
    var records: [[UInt8]] = []
    while !reader.isAtEnd {
        _ = try reader.u32BigEndian("original length")
        let included = try reader.u32BigEndian("included length")
        _ = try reader.bytes(16, "flags, drops and timestamp")
        records.append(Array(try reader.bytes(Int(included), "packet data")))
    }
    return records
}

func fixture(_ name: String) throws -> [UInt8] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
    return [UInt8](try Data(contentsOf: url))
}

@Suite struct AdvertisingReportCaptureTests {
    /// Wireshark's decode of the same file: one line per report event (frame, address, RSSI); see the file's header.
    func tsharkReference() throws -> [(address: String, rssi: Int8)] {
        let text = String(decoding: try fixture("horizon74.tshark-adv-reports.tsv"), as: UTF8.self)
        return try text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let fields = line.split(separator: "\t")
            try #require(fields.count == 3, "bad reference line \(line)")
            return (String(fields[1]).uppercased(), try #require(Int8(fields[2])))
        }
    }

    func packets() throws -> [HCIPacket] {
        let records = try h4Records(ofBtsnoop: try fixture("horizon74_legacy_adv_btsnoop_hci.log"))
        #expect(records.count == 2572)
        return try records.map { record in
            HCIPacket(type: try #require(HCIPacketType(rawValue: record[0])), bytes: Array(record.dropFirst()))
        }
    }

    @Test func reportsMatchWiresharksDecode() throws {
        var decoded: [AdvertisingReport] = []
        for packet in try packets() {
            guard let batch = AdvertisingReportBatch.decode(packet) else { continue }
            #expect(batch.error == nil)
            decoded += batch.reports
        }
        let reference = try tsharkReference()
        #expect(decoded.count == 412)
        #expect(reference.count == 412)
        #expect(decoded.map(\.address.description) == reference.map(\.address))
        #expect(decoded.map(\.rssiDBm) == reference.map(\.rssi))
        #expect(decoded.allSatisfy { $0.isLegacy && $0.dataStatus == .complete })
        #expect(Set(decoded.map(\.address)).count == 36)
    }

    @Test func everyEventAndCommandInTheCaptureDecodes() throws {
        var leMeta = 0
        var typedReturns = 0
        var knownCommands = 0
        for packet in try packets() {
            switch packet.type {
            case .event:
                let event = try HCIEvent.decode(packet)
                #expect(try HCIEvent.decode(event.packet) == event)
                if case .leMeta = event { leMeta += 1 }
                if case let .commandComplete(complete) = event {
                    if complete.opcode == LocalVersionInformation.commandOpcode {
                        _ = try complete.returnParameters(as: LocalVersionInformation.self)
                        typedReturns += 1
                    }
                    if complete.opcode == LocalSupportedCommands.commandOpcode {
                        // This controller leaves octet 37 clear although it accepts both extended scan commands
                        // (frames 121-124 succeed) and sets the LE Extended Advertising feature bit.
                        #expect(try !complete.returnParameters(as: LocalSupportedCommands.self).supportsExtendedScanning)
                        typedReturns += 1
                    }
                    if complete.opcode == LESupportedFeatures.commandOpcode {
                        let features = try complete.returnParameters(as: LESupportedFeatures.self)
                        #expect(features.mask == 0x0001_7FFD)
                        #expect(features.supportsExtendedAdvertising && features.supportsCodedPHY)
                        typedReturns += 1
                    }
                }
            case .command:
                if try HCICommandPacket.decode(packet).command() != nil { knownCommands += 1 }
            default:
                continue
            }
        }
        #expect(leMeta == 416)
        #expect(typedReturns == 3)
        #expect(knownCommands == 1 + 1 + 1 + 1 + 1 + 1 + 9 + 9)
    }

    @Test func theH4StreamFramesIntoTheSameRecords() throws {
        let records = try h4Records(ofBtsnoop: try fixture("horizon74_legacy_adv_btsnoop_hci.log"))
        var random = HCIEventsTestRandom(seed: 74)
        let stream = records.flatMap { $0 }
        let chunks = randomChunks(covering: stream.count, max: 64, using: &random)
        #expect(try frame(stream, chunks: chunks).map(\.h4Bytes) == records)
    }
}
