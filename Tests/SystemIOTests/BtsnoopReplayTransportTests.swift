import BlueDotCore
import Foundation
import HCI
import Testing

@testable import SystemIO

/// Replaying recordings as a transport, paced by test clocks: `SkippingClock` (never waits) or `ManualClock`.
@Suite struct BtsnoopReplayTransportTests {
    /// Writes a recording: command at 0 s, events at 0.5 s, 1.5 s and 4 s, host ACL at 2 s, incoming ACL at 3 s.
    static func writeRecording(_ name: String) throws -> String {
        let path = BtsnoopFileReaderTests.temporaryPath(name)
        let recorder = try BtsnoopRecorder(path: path)
        let start = 1_767_225_600.0
        let entries: [(Double, HCIPacket, HCIDirection)] = [
            (0, HCIPacket(type: .command, bytes: [0x03, 0x0C, 0x00]), .hostToController),
            (0.5, HCIPacket(type: .event, bytes: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]), .controllerToHost),
            (1.5, HCIPacket(type: .event, bytes: [0xFF, 0x01, 0x01]), .controllerToHost),
            (2, HCIPacket(type: .acl, bytes: [0x40, 0x00, 0x00, 0x00]), .hostToController),
            (3, HCIPacket(type: .acl, bytes: [0x40, 0x20, 0x00, 0x00]), .controllerToHost),
            (4, HCIPacket(type: .event, bytes: [0xFF, 0x01, 0x02]), .controllerToHost),
        ]
        for (t, packet, direction) in entries {
            try recorder.record(packet, direction: direction, unixSeconds: start + t)
        }
        recorder.close()
        return path
    }

    static func collect(_ stream: AsyncThrowingStream<HCIPacket, any Error>) async throws -> [HCIPacket] {
        var packets = [HCIPacket]()
        for try await packet in stream { packets.append(packet) }
        return packets
    }

    @Test func streamsControllerToHostPacketsAtRecordedPace() async throws {
        let path = try Self.writeRecording("paced.log")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = SkippingClock(start: 100)
        let transport = BtsnoopReplayTransport(path: path, pacing: .recorded(speed: 2), clock: clock)
        #expect(transport.name == "btsnoop:\(path)")
        let packets = try await Self.collect(try await transport.open())
        #expect(packets.map(\.type) == [.event, .event, .acl, .event])
        #expect(packets.first?.bytes.first == 0x0E)
        // Offsets from the first event (0.5 s) halved by speed 2: 0.5 s, 1.25 s, 1.75 s.
        let offsets = clock.deadlines.map { $0 - 100 }
        #expect(offsets.count == 3 && zip(offsets, [0.5, 1.25, 1.75]).allSatisfy { abs($0 - $1) < 1e-9 }, "\(offsets)")
    }

    @Test func asFastAsPossibleNeverSleepsAndSendIsIgnored() async throws {
        let path = try Self.writeRecording("fast.log")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = SkippingClock(start: 100)
        let transport = BtsnoopReplayTransport(path: path, pacing: .asFastAsPossible, clock: clock)
        let stream = try await transport.open()
        try await transport.send(HCIPacket(type: .command, bytes: [0x03, 0x0C, 0x00]))
        #expect(try await Self.collect(stream).count == 4)
        #expect(clock.deadlines.isEmpty)
        // Reopening replays from the start.
        #expect(try await Self.collect(try await transport.open()).count == 4)
    }

    @Test func damageEndsStreamWithTheError() async throws {
        let path = try Self.writeRecording("damaged-replay.log")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: try handle.seekToEnd() - 2)
        try handle.close()
        let transport = BtsnoopReplayTransport(path: path, pacing: .asFastAsPossible)
        var packets = [HCIPacket]()
        do {
            for try await packet in try await transport.open() { packets.append(packet) }
            Issue.record("no error for a damaged recording")
        } catch let error as BtsnoopFileError {
            guard case let .damaged(_, cause) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(cause.recordNumber == 6 && cause.reason == .truncatedRecord(needs: 28, has: 26))
        }
        #expect(packets.count == 3)
    }

    /// The replay waits on a manual clock that never moves: the stream ending proves `close()` cut the 1000 s wait
    /// short (a hang would run into the time limit).
    @Test(.timeLimit(.minutes(1))) func closeEndsAStreamWaitingForItsNextPacket() async throws {
        let path = try Self.writeRecording("close.log")
        defer { try? FileManager.default.removeItem(atPath: path) }
        // Slowed down 1000 times: the second event would come 1000 s after the first.
        let clock = ManualClock(start: 100)
        let transport = BtsnoopReplayTransport(path: path, pacing: .recorded(speed: 0.001), clock: clock)
        var iterator = try await transport.open().makeAsyncIterator()
        #expect(try await iterator.next() != nil)
        Task {
            await clock.waitForSleepers()  // the wait for the second event
            await transport.close()
        }
        #expect(try await iterator.next() == nil)
        #expect(clock.now() == 100, "no time passed: the wait did not run out")
    }

    @Test func missingFileFailsToOpen() async {
        let transport = BtsnoopReplayTransport(path: "/nonexistent-bluedot.log")
        await #expect(throws: BtsnoopFileError.self) { try await transport.open() }
    }
}
