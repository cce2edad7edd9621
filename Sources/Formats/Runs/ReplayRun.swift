import BlueDotCore
import Positioning

/// One replay: an observation file through the engine, fixes handed out as they become final.
///
/// The service behind `bluedot replay`, kept out of the executable so tests and the benchmark drive it the
/// same way. Input is read in time order by `ObservationReader` (small disorder repaired, bad lines counted or,
/// in strict mode, thrown); observations of targets not selected are skipped before the engine sees them.
public struct ReplayRun: Sendable {
    /// The venue (calibrated or not).
    public var venue: Venue
    /// The engine's configuration.
    public var configuration: EngineConfiguration
    /// Targets to locate; empty for all.
    public var targets: Set<String>
    /// Throw on the first bad input line.
    public var strict: Bool

    /// What a finished replay counted.
    public struct Summary: Sendable {
        /// The reader's counts.
        public var read: ReadReport
        /// The engine's counts.
        public var engine: PositioningEngine.Counters
        /// Observations skipped because their target was not selected.
        public var otherTargets: Int
    }

    /// Creates a replay.
    public init(venue: Venue, configuration: EngineConfiguration, targets: Set<String> = [], strict: Bool = false) {
        self.venue = venue
        self.configuration = configuration
        self.targets = targets
        self.strict = strict
    }

    /// Replays the observation file at `path`, calling `emit` with every fix in output order.
    public func run(path: String, emit: (Location) -> Void) throws(JSONLinesError) -> Summary {
        var reader = try ObservationReader(
            path: path, options: ObservationReader.Options(strict: strict,
                                                           knownAnchors: Set(venue.anchors.map(\.id))))
        var engine = PositioningEngine(venue: venue, configuration: configuration)
        var fixes: [Location] = []
        var otherTargets = 0
        while let line = try reader.next() {
            if !targets.isEmpty && !targets.contains(line.observation.target) {
                otherTargets += 1
                continue
            }
            engine.ingest(line.observation, into: &fixes)
            for fix in fixes { emit(fix) }
            fixes.removeAll(keepingCapacity: true)
        }
        engine.finish(into: &fixes)
        for fix in fixes { emit(fix) }
        return Summary(read: reader.report, engine: engine.counters, otherTargets: otherTargets)
    }

    /// Replays and collects every fix.
    public func run(path: String) throws(JSONLinesError) -> (fixes: [Location], summary: Summary) {
        var fixes: [Location] = []
        let summary = try run(path: path) { fixes.append($0) }
        return (fixes, summary)
    }
}
