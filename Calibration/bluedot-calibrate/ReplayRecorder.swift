import CalibrationKit
import HCI
import Scanner
import SystemIO

/// Survey readings from a btsnoop recording: each `record(seconds:)` takes the next window of the recording,
/// starting at the first sighting not yet taken and lasting `seconds` of the recording's clock. Sightings are
/// decoded with `SightingDecoder`, as `bluedot decode` does; reports without RSSI are skipped. A damaged file
/// ends at the damage (the reason is kept in `stoppedBy`).
struct ReplayRecorder: ExhaustibleRecorder {
    private var pending: [SurveyReading] = []
    private var next = 0
    /// Why the recording ended early, when it did.
    private(set) var stoppedBy: BtsnoopFileError?
    /// The decoder's counts.
    private(set) var statistics: ScannerStatistics

    /// Decodes the whole recording up front (recordings of a survey are small).
    init(path: String) throws(BtsnoopFileError) {
        var decoder = SightingDecoder()
        var readings: [SurveyReading] = []
        let cursor = try BtsnoopFileReader(path: path).makeCursor()
        do {
            while let record = try cursor.next() {
                guard let packet = record.packet else { continue }
                decoder.decode(packet, timestamp: record.unixSeconds) { sighting in
                    if let reading = SurveyReading(sighting) { readings.append(reading) }
                }
            }
        } catch {
            stoppedBy = error
        }
        pending = readings.sorted { $0.t < $1.t }
        statistics = decoder.statistics
    }

    mutating func record(seconds: Double) async throws -> [SurveyReading] {
        guard next < pending.count else { return [] }
        let end = pending[next].t + seconds
        let start = next
        while next < pending.count && pending[next].t < end { next += 1 }
        return Array(pending[start..<next])
    }
}
