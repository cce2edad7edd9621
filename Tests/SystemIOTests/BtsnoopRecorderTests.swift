import Foundation
import HCI
import Testing

@testable import SystemIO

/// Recording btsnoop files: read back by our reader, one write per record, and by Wireshark's and BlueZ's tools.
@Suite struct BtsnoopRecorderTests {
    /// A short, plausible session: reset, its completion, an LE advertising report, a host ACL packet.
    static let session: [(HCIPacket, HCIDirection)] = [
        (HCIPacket(type: .command, bytes: [0x03, 0x0C, 0x00]), .hostToController),
        (HCIPacket(type: .event, bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]), .controllerToHost),
        (
            HCIPacket(
                type: .event,
                bytes: [
                    0x3E, 0x0F, 0x02, 0x01, 0x00, 0x01, 0xAB, 0x6F, 0xBF, 0x38, 0xC1, 0xA4, 0x03, 0x02, 0x01, 0x06, 0xC4,
                ]),
            .controllerToHost
        ),
        (HCIPacket(type: .acl, bytes: [0x40, 0x00, 0x02, 0x00, 0x01, 0x02]), .hostToController),
    ]

    /// Writes `session` with timestamps one second apart from 2026-01-01T00:00:00Z.
    static func writeSession(to path: String) throws -> BtsnoopRecorder {
        let recorder = try BtsnoopRecorder(path: path)
        for (k, (packet, direction)) in session.enumerated() {
            try recorder.record(packet, direction: direction, unixSeconds: 1_767_225_600 + Double(k))
        }
        return recorder
    }

    @Test func recordsReadBack() throws {
        let path = BtsnoopFileReaderTests.temporaryPath("recorder.log")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try Self.writeSession(to: path)
        recorder.close()
        #expect(recorder.recordsWritten == 4)
        #expect(throws: BtsnoopFileError.closed(path: path)) {
            try recorder.record(Self.session[0].0, direction: .hostToController, unixSeconds: 0)
        }
        let cursor = try BtsnoopFileReader(path: path).makeCursor()
        var records = [BtsnoopRecord]()
        while let record = try cursor.next() { records.append(record) }
        #expect(records.map(\.packet) == Self.session.map(\.0))
        #expect(records.map(\.direction) == Self.session.map(\.1))
        #expect(records.map(\.unixSeconds) == (0..<4).map { 1_767_225_600 + Double($0) })
    }

    @Test func eachRecordIsOnDiskAtOnce() throws {
        let path = BtsnoopFileReaderTests.temporaryPath("unbuffered.log")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try BtsnoopRecorder(path: path)
        defer { recorder.close() }
        var expected = BtsnoopWriter.fileHeader()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(expected))
        for (k, (packet, direction)) in Self.session.enumerated() {
            let time = BtsnoopTimestamp(unixMicroseconds: Int64(k))
            try recorder.record(packet, direction: direction, timestamp: time)
            expected += BtsnoopWriter.record(packet, direction: direction, timestamp: time)
            // No user-space buffer: the bytes are in the file before `record` returns.
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(expected))
        }
    }

    @Test func concurrentRecordsStayWhole() async throws {
        let path = BtsnoopFileReaderTests.temporaryPath("concurrent.log")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try BtsnoopRecorder(path: path)
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for k in 0..<100 {
                        let packet = HCIPacket(type: .event, bytes: [0xFF, 0x02, UInt8(writer), UInt8(k)])
                        let time = BtsnoopTimestamp(unixMicroseconds: Int64(k))
                        try? recorder.record(packet, direction: .controllerToHost, timestamp: time)
                    }
                }
            }
        }
        recorder.close()
        var seen = Set<[UInt8]>()
        for try await record in BtsnoopFileReader(path: path) { seen.insert(record.packet?.bytes ?? []) }
        #expect(seen.count == 800)
    }

    @Test func missingDirectoryIsAnOpenError() {
        let path = "/nonexistent-bluedot-dir/x.log"
        #expect(throws: BtsnoopFileError.open(path: path, errno: ENOENT)) { try BtsnoopRecorder(path: path) }
    }
}
