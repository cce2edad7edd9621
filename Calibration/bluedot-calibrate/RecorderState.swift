import BlueDotCore
import CalibrationKit

/// The readings of the window being recorded, shared with the scanner's callback.
final class RecorderState: Sendable {
    private let storage = LockedValue<(recording: Bool, readings: [SurveyReading], failure: String?)>((false, [], nil))

    /// Opens a window.
    func start() { storage.withLock { $0.recording = true; $0.readings = [] } }
    /// Keeps a reading when a window is open.
    func offer(_ r: SurveyReading) { storage.withLock { if $0.recording { $0.readings.append(r) } } }
    /// Records why the scan stopped.
    func fail(_ reason: String) { storage.withLock { $0.failure = reason } }
    /// Why the scan stopped, if it did.
    var failure: String? { storage.withLock { $0.failure } }
    /// Closes the window and returns its readings in time order.
    func take() -> [SurveyReading] {
        storage.withLock { s in
            s.recording = false
            return s.readings.sorted { $0.t < $1.t }
        }
    }
}
