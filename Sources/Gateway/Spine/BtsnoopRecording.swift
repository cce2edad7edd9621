import BlueDotCore
import HCI
import Logging
import Scanner
import SystemIO

/// `record`: every HCI packet of a live scan written to a btsnoop file (SystemIO's recorder), flushed and
/// closed on shutdown. The first write failure is logged; the scan goes on without the recording.
public final class BtsnoopRecording: HCIPacketRecorder {
    /// The file being written.
    public let recorder: BtsnoopRecorder
    private let logger: Logger
    private let failed = LockedValue(false)

    /// Creates the file at `path` (replacing it).
    public init(path: String, logger: Logger) throws {
        recorder = try BtsnoopRecorder(path: path)
        self.logger = logger
    }

    /// Records one packet.
    public func record(_ packet: HCIPacket, direction: HCIDirection, timestamp: Double) {
        do {
            try recorder.record(packet, direction: direction, unixSeconds: timestamp)
        } catch {
            let first = failed.withLock { failed in
                defer { failed = true }
                return !failed
            }
            if first { logger.error("recording failed; scanning goes on", metadata: ["error": "\(error)"]) }
        }
    }

    /// Flushes and closes the file.
    public func close() {
        recorder.close()
        logger.info("recording closed", metadata: ["path": "\(recorder.path)", "records": "\(recorder.recordsWritten)"])
    }
}
