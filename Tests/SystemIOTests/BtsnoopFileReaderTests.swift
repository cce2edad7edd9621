import Foundation
import Glibc
import HCI
import Testing

@testable import SystemIO

/// Reading btsnoop files from disk: the horizon74 fixture, small chunks, damage, missing files.
@Suite struct BtsnoopFileReaderTests {
    /// The horizon74 Android recording in the HCITests fixtures.
    static let fixturePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../HCITests/Fixtures/horizon74_legacy_adv_btsnoop_hci.log").standardized.path

    /// A fresh path in the temporary directory for this test process.
    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("bluedot-btsnoop-\(getpid())-\(name)").path
    }

    /// Decodes bytes in memory, the reference the file reader must match.
    static func decodeInMemory(_ bytes: [UInt8]) throws -> [BtsnoopRecord] {
        var decoder = BtsnoopDecoder()
        decoder.append(bytes)
        decoder.finish()
        var records = [BtsnoopRecord]()
        while let record = try decoder.next() { records.append(record) }
        return records
    }

    @Test func readsFixtureAsAsyncSequence() async throws {
        var records = [BtsnoopRecord]()
        for try await record in BtsnoopFileReader(path: Self.fixturePath) { records.append(record) }
        #expect(records.count == 2572)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixturePath)))
        #expect(records == (try Self.decodeInMemory(bytes)))
    }

    @Test(arguments: [1, 7, 4096])
    func smallChunksGiveSameRecords(chunkSize: Int) throws {
        let cursor = try BtsnoopFileReader(path: Self.fixturePath, chunkSize: chunkSize).makeCursor()
        var count = 0
        var lastOffset = -1
        while let record = try cursor.next() {
            count += 1
            #expect(record.byteOffset > lastOffset)
            lastOffset = record.byteOffset
        }
        #expect(count == 2572 && cursor.datalink == .h4)
        #expect(try cursor.next() == nil)
    }

    @Test func damagedFileYieldsRecordsThenNamesTheDamage() async throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixturePath)))
        let whole = try Self.decodeInMemory(bytes)
        let cut = whole[1000].byteOffset + 10  // inside the header of record 1001
        let path = Self.temporaryPath("damaged.log")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes.prefix(cut)).write(to: URL(fileURLWithPath: path))

        var records = [BtsnoopRecord]()
        do {
            for try await record in BtsnoopFileReader(path: path, chunkSize: 333) { records.append(record) }
            Issue.record("no error for a truncated file")
        } catch let error as BtsnoopFileError {
            let expected = BtsnoopError(
                recordNumber: 1001, byteOffset: whole[1000].byteOffset, reason: .truncatedRecord(needs: 24, has: 10))
            #expect(error == .damaged(path: path, expected))
            let message = "stopped at record 1001, byte offset \(cut - 10): truncated record (needs 24 bytes, has 10)"
            #expect(error.description == "\(path): \(message)")
        }
        #expect(records == Array(whole.prefix(1000)))
    }

    @Test func missingFileIsAnOpenError() {
        let path = Self.temporaryPath("does-not-exist.log")
        #expect(throws: BtsnoopFileError.open(path: path, errno: ENOENT)) {
            try BtsnoopFileReader(path: path).makeCursor()
        }
    }
}
