import BlueDotCore
import HCI
import Positioning
import Scanner
import SystemIO

/// Self-mode replay of a whole btsnoop recording, as fast as it reads (`bluedot replay REC.btsnoop`): every
/// advertising report entry becomes an observation (`ObservationDecoder`), stamped with its record time, and goes
/// through the daemon's positioning step (a `PositioningPipeline`) in record order, a record's observations as one
/// batch. A damaged file replays up to the damage, which the summary names.
public enum RecordingReplay {
    /// What a replay of a recording counted.
    public struct Summary: Sendable {
        /// Records, reports, beacons and malformed reports, as `bluedot decode` counts them.
        public var decoded: ScannerStatistics
        /// Sightings that became observations (the rest had no RSSI).
        public var observations = 0
        /// Why and where reading stopped early; nil when the whole file was read.
        public var damage: BtsnoopFileError?
    }

    /// True when the file starts with the btsnoop magic (`btsnoop\0`).
    public static func isRecording(path: String) -> Bool {
        guard let cursor = try? BtsnoopFileReader(path: path, chunkSize: 16).makeCursor() else { return false }
        return (try? cursor.next()) != nil || cursor.datalink != nil
    }

    /// Replays the recording at `path` through `pipeline`, calling `emit` with each fix in output order.
    public static func run(
        path: String, pipeline: PositioningPipeline, mapper: SightingMapper = SightingMapper(),
        emit: (Location) -> Void
    ) throws(BtsnoopFileError) -> Summary {
        let cursor = try BtsnoopFileReader(path: path).makeCursor()
        var decoder = ObservationDecoder(mapper: mapper)
        var damage: BtsnoopFileError?
        do {
            while let record = try cursor.next() {
                guard let packet = record.packet, record.direction == .controllerToHost else { continue }
                let t = record.timestamp.unixSeconds
                var batch = ObservationBatch()
                decoder.decode(packet, timestamp: t) { batch.append(Arrival($0, arrivedAt: t)) }
                if !batch.isEmpty { pipeline.ingest(batch).forEach(emit) }
            }
        } catch let error where error.isDamage {
            damage = error
        }
        pipeline.finish().forEach(emit)
        return Summary(decoded: decoder.statistics, observations: decoder.observations, damage: damage)
    }
}

extension BtsnoopFileError {
    /// True for a file that is readable but damaged (the records before the damage were delivered).
    public var isDamage: Bool {
        if case .damaged = self { return true }
        return false
    }
}
