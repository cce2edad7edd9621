import BlueDotCore
import Devices
import Formats
import Logging
import Positioning

/// One replay: an observation file through the daemon's own pipeline, fixes handed out as they become final.
///
/// The service behind `bluedot replay` and the accuracy runs, kept out of the executable so tests and the
/// benchmark drive it the same way. The file is an input of the spine (`ObservationFileSource`: read in time order
/// by `ObservationReader`, small disorder repaired, bad lines counted or, in strict mode, thrown; observations of
/// targets not selected skipped before the engine sees them), run by an `InputRunner` into one
/// `PositioningPipeline` with the policy of a run that ends with its input: no clock ticks, a failure ends it, and
/// the engine is flushed when the file ends. So the fixes are those the daemon makes of the same observations.
public struct ReplayRun: Sendable {
    /// The venue (calibrated or not).
    public var venue: Venue
    /// The engine's configuration.
    public var configuration: EngineConfiguration
    /// Targets to locate; empty for all.
    public var targets: Set<String>
    /// Throw on the first bad input line.
    public var strict: Bool
    /// The device registry's view of the file's targets (`--devices`); nil: targets as read.
    public var devices: DeviceIdentifier?

    /// What a finished replay counted.
    public struct Summary: Sendable {
        /// The reader's counts.
        public var read: ReadReport
        /// The engine's counts.
        public var engine: PositioningEngine.Counters
        /// Observations skipped because their target was not selected.
        public var otherTargets: Int
        /// What self-calibration learned, when the configuration turned it on.
        public var learned: LearnedCalibration?
    }

    /// The runner's policy for a replay: released by observations only, a failed input ends it, the engine flushed
    /// when the input ends.
    public static let policy = InputRunner.Policy(restartDelaySeconds: nil, tickSeconds: nil, finishWhenInputsEnd: true)

    /// Creates a replay.
    public init(venue: Venue, configuration: EngineConfiguration, targets: Set<String> = [], strict: Bool = false,
                devices: DeviceIdentifier? = nil) {
        self.devices = devices
        self.venue = venue
        self.configuration = configuration
        self.targets = targets
        self.strict = strict
    }

    /// Replays the observation file at `path`, calling `emit` with every fix in output order. Throws the reader's
    /// `JSONLinesError` (a missing file; the first bad line in strict mode).
    public func run(path: String, emit: @escaping @Sendable ([Location]) -> Void) async throws -> Summary {
        let options = ObservationReader.Options(strict: strict, knownAnchors: Set(venue.anchors.map(\.id)))
        let input = try ObservationFileSource(path: path, options: options, targets: targets, devices: devices)
        let pipeline = PositioningPipeline(venue: venue, configuration: configuration)
        var logger = Logger(label: "bluedot.replay")
        logger.logLevel = .warning
        let runner = InputRunner(inputs: [input], pipeline: pipeline, clock: SystemClock(), policy: Self.policy,
                                 logger: logger, deliver: emit)
        try await runner.run()
        guard let read = input.report else { throw CancellationError() }
        return Summary(read: read, engine: pipeline.counters, otherTargets: input.otherTargets,
                       learned: pipeline.learnedCalibration)
    }

    /// Replays and collects every fix.
    public func run(path: String) async throws -> (fixes: [Location], summary: Summary) {
        let fixes = LockedValue<[Location]>([])
        let summary = try await run(path: path) { located in fixes.withLock { $0 += located } }
        return (fixes.value, summary)
    }
}
