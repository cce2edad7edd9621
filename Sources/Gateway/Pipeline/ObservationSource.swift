import Positioning

/// Counters a source keeps while it runs; the pipeline turns them into metrics.
public struct SourceStatistics: Sendable, Hashable {
    /// Advertising reports (or observation lines) taken in.
    public var reports = 0
    /// Reports that could not be decoded.
    public var malformed = 0
    /// Link re-opens.
    public var reconnects = 0
    /// Times a replay started over.
    public var loops = 0

    /// All zero.
    public init() {}

    /// Adds another run's counters to these.
    public mutating func add(_ other: SourceStatistics) {
        reports += other.reports
        malformed += other.malformed
        reconnects += other.reconnects
        loops += other.loops
    }
}

/// Where the gateway's observations come from: a live scanner, a recording, a file or a simulation.
public protocol ObservationSource: Sendable {
    /// A short description for logs (`h4-tcp:127.0.0.1:9000`, `observations:walk.jsonl`).
    var name: String { get }
    /// Runs until the source ends or `stop()` is called, handing each observation in time order to `deliver`
    /// with the wall time (Unix seconds) its report arrived. Throws when the source cannot start or fails.
    func run(_ deliver: @escaping @Sendable (Observation, _ arrivedAt: Double) -> Void) async throws
    /// Asks `run` to return soon; safe from any task, more than once.
    func stop()
    /// A snapshot of the counters.
    var statistics: SourceStatistics { get }
    /// The observation time that corresponds to wall time `wall` while the source runs (its observations'
    /// clock), or nil when it has none (the default). The pipeline releases the engine's grid up to it, so a
    /// target whose anchors go quiet keeps getting last-known fixes.
    func observationTime(atWallTime wall: Double) -> Double?
}

extension ObservationSource {
    /// No observation clock: fixes are released by observations only.
    public func observationTime(atWallTime wall: Double) -> Double? { nil }
}
