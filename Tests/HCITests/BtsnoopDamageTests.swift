import Testing

@testable import HCI

/// Damaged and truncated btsnoop input: every record up to the damage, then an error naming where.
@Suite struct BtsnoopDamageTests {
    /// A small recording: header and five records of different lengths.
    static func smallRecording() -> (bytes: [UInt8], boundaries: [Int]) {
        var bytes = BtsnoopWriter.fileHeader()
        var boundaries = [bytes.count]
        for k in 0..<5 {
            let packet = HCIPacket(type: .event, bytes: [0x0E, UInt8(k + 1)] + Array(repeating: UInt8(k), count: k + 1))
            bytes += BtsnoopWriter.record(
                packet, direction: .controllerToHost, timestamp: BtsnoopTimestamp(unixMicroseconds: Int64(k)))
            boundaries.append(bytes.count)
        }
        return (bytes, boundaries)
    }

    @Test func everyTruncationPointReportsWhereItStopped() {
        let (bytes, boundaries) = Self.smallRecording()
        for cut in 0..<bytes.count {
            let (records, error) = BtsnoopDecoderTests.decode([bytes[..<cut]])
            let whole = boundaries.lastIndex { $0 <= cut }.map { $0 } ?? -1
            #expect(records.count == max(0, whole), "cut at \(cut)")
            if boundaries.contains(cut) {
                #expect(error == nil, "cut at \(cut)")
                continue
            }
            guard let error else {
                Issue.record("cut at \(cut): no error")
                continue
            }
            if cut < 16 {
                let expected = BtsnoopError(recordNumber: 0, byteOffset: 0, reason: .truncatedHeader(needs: 16, has: cut))
                #expect(error == expected)
            } else {
                let recordStart = boundaries[whole]
                let has = cut - recordStart
                let needs = has < 24 ? 24 : boundaries[whole + 1] - recordStart
                let reason = BtsnoopError.Reason.truncatedRecord(needs: needs, has: has)
                let expected = BtsnoopError(recordNumber: whole + 1, byteOffset: recordStart, reason: reason)
                #expect(error == expected, "cut at \(cut)")
            }
        }
    }

    @Test func truncationMessageNamesRecordAndOffset() {
        let (bytes, boundaries) = Self.smallRecording()
        #expect(boundaries[3] - boundaries[2] == 30)  // 24-byte header, indicator, 5-byte event
        let (records, error) = BtsnoopDecoderTests.decode([bytes[..<(boundaries[2] + 28)]])
        #expect(records.count == 2)
        #expect(
            error?.description
                == "stopped at record 3, byte offset \(boundaries[2]): truncated record (needs 30 bytes, has 28)")
    }

    @Test func emptyInputIsATruncatedHeader() {
        let (records, error) = BtsnoopDecoderTests.decode([ArraySlice<UInt8>]())
        #expect(records.isEmpty)
        #expect(
            error?.description
                == "stopped at the file header, byte offset 0: truncated header (needs 16 bytes, has 0)")
    }

    @Test func headerErrors() {
        var bytes = BtsnoopWriter.fileHeader()
        bytes[0] = UInt8(ascii: "B")
        #expect(BtsnoopDecoderTests.decode([bytes[...]]).1?.reason == .badMagic)
        bytes = BtsnoopWriter.fileHeader()
        bytes[11] = 2
        #expect(BtsnoopDecoderTests.decode([bytes[...]]).1?.reason == .unsupportedVersion(2))
        bytes = BtsnoopWriter.fileHeader()
        bytes[15] = 0xE9  // 1001: unencapsulated HCI, not supported
        #expect(BtsnoopDecoderTests.decode([bytes[...]]).1?.reason == .unsupportedDatalink(1001))
    }

    /// Replaces the big-endian u32 at `offset`.
    static func patch(_ bytes: inout [UInt8], at offset: Int, _ value: UInt32) {
        for k in 0..<4 { bytes[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * (3 - k))) }
    }

    @Test func recordErrorsStopAfterEarlierRecords() {
        let (good, boundaries) = Self.smallRecording()
        let third = boundaries[2]

        var bytes = good
        Self.patch(&bytes, at: third + 4, 100)  // included 100 > original
        var (records, error) = BtsnoopDecoderTests.decode([bytes[...]])
        #expect(records.count == 2)
        #expect(error?.reason == .includedLengthExceedsOriginal(included: 100, original: 6))
        #expect(error?.recordNumber == 3 && error?.byteOffset == third)

        bytes = good
        Self.patch(&bytes, at: third, 70_000)
        Self.patch(&bytes, at: third + 4, 70_000)
        (records, error) = BtsnoopDecoderTests.decode([bytes[...]])
        #expect(records.count == 2 && error?.reason == .implausibleLength(70_000))

        bytes = good
        bytes[third + 24] = 0x09
        (records, error) = BtsnoopDecoderTests.decode([bytes[...]])
        #expect(records.count == 2 && error?.reason == .unknownH4Indicator(0x09))
        #expect(error?.description == "stopped at record 3, byte offset \(third): unknown H4 packet indicator 0x9")
    }

    @Test func decoderStaysFailed() throws {
        var decoder = BtsnoopDecoder()
        decoder.append([UInt8](repeating: 0, count: 16))
        #expect(throws: BtsnoopError.self) { try decoder.next() }
        decoder.append(BtsnoopWriter.fileHeader())
        #expect(throws: BtsnoopError(recordNumber: 0, byteOffset: 0, reason: .badMagic)) { try decoder.next() }
    }

    @Test func recordCutShortByTheCaptureIsKept() {
        var bytes = BtsnoopWriter.fileHeader()
        bytes += BtsnoopWriter.record(
            HCIPacket(type: .event, bytes: [0x0E, 0x01, 0x01]), direction: .controllerToHost,
            timestamp: BtsnoopTimestamp(unixMicroseconds: 0))
        Self.patch(&bytes, at: 16, 200)  // original length 200, included 4: a snapped capture
        let (records, error) = BtsnoopDecoderTests.decode([bytes[...]])
        #expect(error == nil && records.first?.originalLength == 200 && records.first?.packet?.bytes.count == 3)
    }

    @Test func seededMutationsNeverCrashAndStopInsideTheFile() throws {
        let original = Array(try BtsnoopDecoderTests.fixture().prefix(4096))
        var rng = ADRoundTripTests.SeededGenerator(seed: 0xB7_5009)
        for _ in 0..<300 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            let (records, error) = BtsnoopDecoderTests.decode([bytes[...]])
            #expect(zip(records, records.dropFirst()).allSatisfy { $0.byteOffset < $1.byteOffset })
            #expect(records.map(\.number) == Array(1..<(records.count + 1)))
            // The 4096-byte prefix ends inside a record, so every run ends in an error at or after the last record.
            let failure = try #require(error)
            #expect(failure.byteOffset <= bytes.count)
            #expect(failure.recordNumber == (failure.recordNumber == 0 ? 0 : records.count + 1))
            #expect(failure.recordNumber != 0 || records.isEmpty)
        }
    }
}
