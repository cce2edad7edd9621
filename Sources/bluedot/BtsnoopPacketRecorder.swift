import HCI
import HCILinux
import Logging
import Scanner
import Synchronization

/// Glue for `--record`: hands the scanner's packets to HCILinux's btsnoop recorder, logging the first write
/// failure (the scan goes on without the recording).
final class BtsnoopPacketRecorder: HCIPacketRecorder {
    let recorder: BtsnoopRecorder
    private let logger: Logger
    private let failed = Mutex(false)

    init(recorder: BtsnoopRecorder, logger: Logger) {
        self.recorder = recorder
        self.logger = logger
    }

    func record(_ packet: HCIPacket, direction: HCIDirection, timestamp: Double) {
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
}
