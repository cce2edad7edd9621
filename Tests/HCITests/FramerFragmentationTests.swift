import Testing
@testable import HCI

/// A random, well-formed packet of any type, with a header that announces its length.
func randomPacket(using random: inout HCIEventsTestRandom) -> HCIPacket {
    let type = HCIPacketType.allCases.randomElement(using: &random)!
    var writer = ByteWriter()
    switch type {
    case .command:
        let count = Int.random(in: 0...255, using: &random)
        writer.u16(UInt16.random(in: 0...UInt16.max, using: &random))
        writer.u8(UInt8(count))
        writer.append(random.bytes(count))
    case .event:
        let count = Int.random(in: 0...255, using: &random)
        writer.u8(UInt8.random(in: 0...UInt8.max, using: &random))
        writer.u8(UInt8(count))
        writer.append(random.bytes(count))
    case .acl, .iso:
        let count = Int.random(in: 0...600, using: &random)
        writer.u16(UInt16.random(in: 0...0x0EFF, using: &random))
        writer.u16(UInt16(count))
        writer.append(random.bytes(count))
    case .sco:
        let count = Int.random(in: 0...255, using: &random)
        writer.u16(UInt16.random(in: 0...0x0EFF, using: &random))
        writer.u8(UInt8(count))
        writer.append(random.bytes(count))
    }
    return HCIPacket(type: type, bytes: writer.bytes)
}

/// Feeds `stream` to a fresh framer in the given chunk sizes and collects every packet.
func frame(_ stream: [UInt8], chunks: [Int]) throws(H4Framer.Error) -> [HCIPacket] {
    var framer = H4Framer()
    var packets: [HCIPacket] = []
    var start = 0
    for size in chunks {
        framer.append(stream[start..<min(stream.count, start + size)])
        start = min(stream.count, start + size)
        while let packet = try framer.next() { packets.append(packet) }
    }
    #expect(framer.pendingByteCount == 0)
    return packets
}

/// Random chunk sizes (1...max) that cover `count` bytes.
func randomChunks(covering count: Int, max: Int, using random: inout HCIEventsTestRandom) -> [Int] {
    var chunks: [Int] = []
    var covered = 0
    while covered < count {
        let size = Int.random(in: 1...max, using: &random)
        chunks.append(size)
        covered += size
    }
    return chunks
}

@Suite struct FramerFragmentationTests {
    @Test(arguments: [UInt64(3), 2026, 0xB1E_D07])
    func sameBytesSamePacketsHoweverSplit(seed: UInt64) throws {
        var random = HCIEventsTestRandom(seed: seed)
        let packets = (0..<200).map { _ in randomPacket(using: &random) } + validEventPackets()
        let stream = packets.flatMap(\.h4Bytes)
        #expect(try frame(stream, chunks: [stream.count]) == packets)
        #expect(try frame(stream, chunks: Array(repeating: 1, count: stream.count)) == packets)
        for maxChunk in [3, 17, 700] {
            let chunks = randomChunks(covering: stream.count, max: maxChunk, using: &random)
            #expect(try frame(stream, chunks: chunks) == packets)
        }
    }

    @Test func unknownIndicatorThrowsWithTheStreamOffset() throws {
        let first = ResetCommand().packet.h4Bytes + packet(h4: bumbleThreeLegacyReports).h4Bytes
        let stream = first + [0x07, 0x00, 0x00]
        let expected = H4Framer.Error.unknownPacketIndicator(0x07, streamOffset: first.count)
        for chunks in [[stream.count], Array(repeating: 1, count: stream.count), [2, 9, 30, 100]] {
            var framer = H4Framer()
            var start = 0
            var framed = 0
            var failure: H4Framer.Error?
            feeding: for size in chunks {
                framer.append(stream[start..<min(stream.count, start + size)])
                start = min(stream.count, start + size)
                do {
                    while try framer.next() != nil { framed += 1 }
                } catch {
                    failure = error
                    break feeding
                }
            }
            #expect(framed == 2)
            #expect(failure == expected)
            #expect(throws: expected) { try framer.next() }
            framer.reset()
            framer.append(ResetCommand().packet.h4Bytes)
            #expect(try framer.next() == ResetCommand().packet)
        }
    }
}
