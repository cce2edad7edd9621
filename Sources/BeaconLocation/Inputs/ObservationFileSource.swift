import BlueDotCore
import Devices
import Formats
import JSON
import Positioning

/// An observation file as an input of the spine, read as fast as the pipeline takes it: `bluedot replay` and the
/// accuracy runs go through the daemon's pipeline (`InputRunner`, `PositioningPipeline`) with it, so a replay's
/// figures are the daemon's.
///
/// The file is read by an `ObservationReader` (small disorder repaired, bad lines counted or, in strict mode,
/// thrown) and handed over in batches of at most `batchSize`, keeping the observations' own times; a report's
/// arrival is its observation time (no clock is involved). Each batch says how far it reaches
/// (`deliveredThrough()`: the time of the next observation), so the pipeline releases every fix before it, as an
/// engine fed line by line would. Observations of targets not in `targets` (when given) are skipped before the
/// engine sees them, and counted.
public final class ObservationFileSource: ObservationSource {
    private struct State {
        var reader: ObservationReader?
        var report: ReadReport?
        var otherTargets = 0
        var statistics = SourceStatistics()
        var deliveredThrough: Double?
        var stopped = false
    }

    /// For logs: `observations:<file>`.
    public let name: String
    /// The targets to keep; empty for all.
    public let targets: Set<String>
    /// The device registry's view of targets (`DeviceIdentifier.target(ofObservation:)`); nil: targets as read.
    public let devices: DeviceIdentifier?
    /// The most observations handed over at once.
    public let batchSize: Int
    private let state: LockedValue<State>

    /// Opens the file at `path` (a missing or unreadable file throws here, naming it).
    public init(path: String, options: ObservationReader.Options = .init(), targets: Set<String> = [],
                devices: DeviceIdentifier? = nil, batchSize: Int = 256) throws(JSONLinesError) {
        let reader = try ObservationReader(path: path, options: options)
        name = "observations:\(reader.report.file)"
        self.targets = targets
        self.devices = devices
        self.batchSize = max(1, batchSize)
        state = LockedValue(State(reader: reader))
    }

    /// The reader's counts once the file has been read (the lines it could not use, with their numbers).
    public var report: ReadReport? { state.withLock { $0.report } }

    /// Observations skipped because their target was not selected.
    public var otherTargets: Int { state.withLock { $0.otherTargets } }

    /// The counters.
    public var statistics: SourceStatistics { state.withLock { $0.statistics } }

    /// The time of the next observation, before which everything was handed over.
    public func deliveredThrough() -> Double? { state.withLock { $0.deliveredThrough } }

    /// Stops at the next batch.
    public func stop() { state.withLock { $0.stopped = true } }

    /// Reads the file once, in batches, on the calling task; throws the reader's error (strict mode).
    public func run(
        started: @escaping @Sendable () -> Void, _ deliver: @escaping @Sendable (ObservationBatch) -> Void
    ) async throws {
        guard var reader = state.withLock({ s in defer { s.reader = nil }; return s.reader }) else { return }
        started()
        var batch: [Observation] = []
        batch.reserveCapacity(batchSize)
        var next = try nextSelected(&reader)
        while let o = next, !state.withLock({ $0.stopped }) {
            batch.append(o)
            next = try nextSelected(&reader)
            if batch.count == batchSize || next == nil {
                let through = next?.t
                state.withLock { s in
                    s.statistics.reports += batch.count
                    s.statistics.observations += batch.count
                    s.deliveredThrough = through
                }
                deliver(batch.map { Arrival($0, arrivedAt: $0.t) })
                batch.removeAll(keepingCapacity: true)
            }
        }
        let report = reader.report
        state.withLock { s in
            s.report = report
            s.deliveredThrough = nil
        }
    }

    /// The next observation of a selected target, counting the others.
    private func nextSelected(_ reader: inout ObservationReader) throws(JSONLinesError) -> Observation? {
        while let line = try reader.next() {
            var o = line.observation
            if let devices {
                // A stranger's address is skipped like an unselected target (the identifier counts it).
                guard let target = devices.target(ofObservation: o.target) else { continue }
                o.target = target
            }
            if targets.isEmpty || targets.contains(o.target) { return o }
            state.withLock { $0.otherTargets += 1 }
        }
        return nil
    }
}
