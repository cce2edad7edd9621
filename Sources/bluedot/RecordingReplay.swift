import BeaconLocation
import HCI
import HCILinux
import Positioning
import Scanner

/// Self-mode replay of a btsnoop recording: every advertising report entry becomes an observation of the beacon
/// it came from (anchor = canonical beacon id, target `self`), stamped with its record time, and goes through the
/// positioning engine in record order. A damaged file replays up to the damage, which the summary names.
struct RecordingReplay {
    /// What a replay of a recording counted.
    struct Summary {
        /// Records, reports, beacons and malformed reports, as `bluedot decode` counts them.
        var decoded: ScannerStatistics
        /// Sightings that became observations (the rest had no RSSI).
        var observations = 0
        /// Why and where reading stopped early; nil when the whole file was read.
        var damage: BtsnoopFileError?
    }

    /// True when the file starts with the btsnoop magic (`btsnoop\0`).
    static func isRecording(path: String) -> Bool {
        guard let cursor = try? BtsnoopFileReader(path: path, chunkSize: 16).makeCursor() else { return false }
        return (try? cursor.next()) != nil || cursor.datalink != nil
    }

    /// Replays the recording at `path` through `engine`, calling `emit` with each fix in output order.
    static func run(
        path: String, engine: inout PositioningEngine, emit: (LocationFix) -> Void
    ) throws(BtsnoopFileError) -> Summary {
        let cursor = try BtsnoopFileReader(path: path).makeCursor()
        var decoder = SightingDecoder()
        var summary = Summary(decoded: ScannerStatistics())
        var fixes: [LocationFix] = []
        do {
            while let record = try cursor.next() {
                guard let packet = record.packet, record.direction == .controllerToHost else { continue }
                decoder.decode(packet, timestamp: record.timestamp.unixSeconds) { sighting in
                    guard let observation = Observation(sighting: sighting) else { return }
                    summary.observations += 1
                    engine.ingest(observation, into: &fixes)
                }
                fixes.forEach(emit)
                fixes.removeAll(keepingCapacity: true)
            }
        } catch let error where error.isDamage {
            summary.damage = error
        }
        engine.finish(into: &fixes)
        fixes.forEach(emit)
        summary.decoded = decoder.statistics
        return summary
    }
}

extension BtsnoopFileError {
    /// True for a file that is readable but damaged (the records before the damage were delivered).
    var isDamage: Bool {
        if case .damaged = self { return true }
        return false
    }
}
