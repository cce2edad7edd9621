import BlueDotCore
import Testing
@testable import HCI

/// The seeded generator that makes every fuzz run reproducible.
typealias HCIEventsTestRandom = SplitMix64

extension SplitMix64 {
    /// `count` random bytes.
    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &self) }
    }
}

/// Valid event packets of every declared kind, the advertising report events included.
func validEventPackets() -> [HCIPacket] {
    sampleEvents.map(\.packet) + [packet(h4: bumbleThreeLegacyReports), packet(h4: bumbleTwoExtendedReports)]
}

/// Decodes `packet` every way this module can; when a decode succeeds, its value must survive re-encoding.
func decodeEveryWay(_ packet: HCIPacket) throws {
    if let event = try? HCIEvent.decode(packet) {
        #expect(try HCIEvent.decode(event.packet) == event)
    }
    if let batch = AdvertisingReportBatch.decode(packet) {
        #expect(batch.reports.count <= batch.declaredCount ?? 0)
        #expect(batch.error != nil || batch.reports.count == batch.declaredCount)
    }
    if let command = try? HCICommandPacket.decode(packet), let known = try? command.command() {
        #expect(known.packet == packet)
    }
}

@Suite struct EventFuzzTests {
    @Test(arguments: [UInt64(1), 42, 20_261_121])
    func randomBytesNeverCrashADecoder(seed: UInt64) throws {
        var random = HCIEventsTestRandom(seed: seed)
        for _ in 0..<3_000 {
            let count = Int.random(in: 0...72, using: &random)
            var bytes = random.bytes(count)
            // Bias towards the interesting shapes: a matching length byte and an LE Meta report subevent.
            if count >= 2, Bool.random(using: &random) { bytes[1] = UInt8(count - 2) }
            if count >= 3, Bool.random(using: &random) {
                bytes[0] = 0x3E
                bytes[2] = Bool.random(using: &random) ? 0x02 : 0x0D
            }
            try decodeEveryWay(HCIPacket(type: .event, bytes: bytes))
            try decodeEveryWay(HCIPacket(type: .command, bytes: bytes))
        }
    }

    @Test(arguments: [UInt64(7), 99])
    func mutatedValidPacketsNeverCrashADecoder(seed: UInt64) throws {
        var random = HCIEventsTestRandom(seed: seed)
        let valid = validEventPackets() + sampleCommands.map(\.packet)
        for _ in 0..<3_000 {
            var packet = valid.randomElement(using: &random)!
            let flips = Int.random(in: 1...3, using: &random)
            for _ in 0..<flips where !packet.bytes.isEmpty {
                let index = Int.random(in: packet.bytes.indices, using: &random)
                packet.bytes[index] = UInt8.random(in: .min ... .max, using: &random)
            }
            try decodeEveryWay(packet)
        }
    }

    @Test func everyTruncationOfAValidEventThrows() {
        for packet in validEventPackets() {
            for cut in 0..<packet.bytes.count {
                let short = HCIPacket(type: .event, bytes: Array(packet.bytes.prefix(cut)))
                #expect(throws: HCIDecodingError.self) { try HCIEvent.decode(short) }
                if let batch = AdvertisingReportBatch.decode(short) {
                    #expect(batch.error != nil)
                }
            }
        }
    }

    @Test func everyTruncationOfReportParametersKeepsTheWholeEntries() throws {
        let cases: [(bytes: [UInt8], extended: Bool, ends: [Int])] = [
            // Parameters after the subevent code; `ends` are the offsets where each entry ends.
            (Array(bumbleThreeLegacyReports.dropFirst(4)), false, [14, 24, 38]),
            (Array(bumbleTwoExtendedReports.dropFirst(4)), true, [28, 56]),
        ]
        for (bytes, extended, ends) in cases {
            for cut in 0..<bytes.count {
                let batch = AdvertisingReportBatch.decode(afterSubevent: bytes.prefix(cut), extended: extended)
                #expect(batch.error != nil)
                #expect(batch.reports.count == ends.filter { $0 <= cut }.count)
            }
            #expect(AdvertisingReportBatch.decode(afterSubevent: bytes[...], extended: extended).error == nil)
        }
    }
}
