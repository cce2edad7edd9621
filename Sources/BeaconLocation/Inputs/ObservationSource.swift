import Positioning
import Scanner

/// Counters a source keeps while it runs; the gateway turns them into metrics.
public struct SourceStatistics: Sendable, Hashable {
    /// Advertising reports (or observation lines) taken in.
    public var reports = 0
    /// Reports that could not be decoded.
    public var malformed = 0
    /// Sightings without an RSSI, skipped.
    public var withoutRSSI = 0
    /// Observations delivered.
    public var observations = 0
    /// Link re-opens.
    public var reconnects = 0
    /// Times a scanner got its scan back, by action and reason (`ScannerStatistics.scanRecoveries`).
    public var scanRecoveries: [ScanRecovery: Int] = [:]
    /// Times a replay started over.
    public var loops = 0

    /// All zero.
    public init() {}

    /// Adds another run's (or source's) counters to these.
    public mutating func add(_ other: SourceStatistics) {
        reports += other.reports
        malformed += other.malformed
        withoutRSSI += other.withoutRSSI
        observations += other.observations
        reconnects += other.reconnects
        scanRecoveries.merge(other.scanRecoveries, uniquingKeysWith: +)
        loops += other.loops
    }
}

/// An input of the spine: where observations come from (a live scanner, a recording, an observation file, a
/// simulation). Several run at once into one `PositioningPipeline` (`InputRunner`).
public protocol ObservationSource: Sendable {
    /// A short description for logs (`scan:h4-tcp:127.0.0.1:9000`, `observations:walk.jsonl`).
    var name: String { get }
    /// Runs until the source ends or `stop()` is called, handing what it hears to `deliver` in batches (what came
    /// together: a report, what fell due in one wake of a replay, what left a site's reorder buffer), in time order,
    /// each observation with the time (Unix seconds, on the injected clock) its report arrived; calls `started` once
    /// it delivers (the scan runs, the file is open). Throws when the source cannot start or fails. The engine
    /// takes a batch under one lock, and its fixes reach the observers (and the web feed's connections) in one go.
    func run(started: @escaping @Sendable () -> Void, _ deliver: @escaping @Sendable (ObservationBatch) -> Void)
        async throws
    /// Asks `run` to return soon; safe from any task, more than once.
    func stop()
    /// A snapshot of the counters.
    var statistics: SourceStatistics { get }
    /// The observation time that corresponds to clock time `now` while the source runs (its observations'
    /// clock), or nil when it has none (the default). The pipeline releases the engine's grid up to it, so a
    /// target whose anchors go quiet keeps getting last-known fixes.
    func observationTime(at now: Double) -> Double?
    /// The observation time before which the source has handed over every observation it ever will, or nil when
    /// it cannot know (the default: a live scanner's reports may still arrive late). A paced replay knows: its
    /// next observation is stamped then. With every input's, the pipeline releases fixes up to it as soon as a
    /// batch is in, instead of waiting for the next batch or the clock's tick.
    func deliveredThrough() -> Double?
}

extension ObservationSource {
    /// No observation clock: fixes are released by observations only.
    public func observationTime(at now: Double) -> Double? { nil }

    /// Not known: fixes are released by later observations and the clock.
    public func deliveredThrough() -> Double? { nil }
}
