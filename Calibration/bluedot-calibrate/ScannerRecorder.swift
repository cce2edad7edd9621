import BlueDotCore
import CalibrationKit
import Foundation
import HCI
import Logging
import Scanner

/// Survey readings from a live scanner: the scan runs for the whole session; `record(seconds:)` keeps what is
/// heard during the next `seconds` on the clock (the wall clock unless a test passes another).
final class ScannerRecorder: SurveyRecorder, Sendable {
    private let scanner: LEScanner
    private let clock: any BlueDotClock
    private let state = RecorderState()
    private let task: Task<Void, Never>

    /// Starts scanning over the transport.
    init(transport: any HCITransport, clock: any BlueDotClock = SystemClock(), logger: Logger) {
        self.clock = clock
        let scanner = LEScanner(transport: transport, configuration: ScanConfiguration(), clock: clock,
                                logger: logger)
        let state = self.state
        self.scanner = scanner
        task = Task {
            do {
                try await scanner.run { sighting in
                    guard let reading = SurveyReading(sighting) else { return }
                    state.offer(reading)
                }
            } catch {
                state.fail("\(error)")
            }
        }
    }

    func record(seconds: Double) async throws -> [SurveyReading] {
        state.start()
        try await clock.sleep(seconds: seconds)
        if let reason = state.failure { throw ScanFailure(reason: reason) }
        return state.take()
    }

    /// Stops the scan and waits for it to end.
    func stop() async {
        scanner.stop()
        await task.value
    }

    /// The scan stopped with an error.
    struct ScanFailure: Error, CustomStringConvertible {
        var reason: String
        var description: String { "scan failed: \(reason)" }
    }
}
