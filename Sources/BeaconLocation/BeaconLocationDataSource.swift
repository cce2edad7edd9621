import BlueDotCore
import HCI
import LocationDisplay
import Logging
import Positioning
import Scanner

/// The blue dot from Bluetooth beacons: self mode of the spine. Its inputs (a live controller, a recording, an
/// observation file; several at once) feed one `PositioningPipeline` through an `InputRunner`, and each fix of the
/// target is pushed to listeners as a `Location` (`didUpdate`), with latitude and longitude when the venue has an
/// origin. The gateway's self mode relays it into a `LocationSource` (`LocationDataSourceRelay`).
///
/// Start succeeds once the first input delivers (the scan runs, the recording is open) and fails when an input
/// fails before that (the scanner's `ScannerError.transportUnavailable`, `BeaconLocationError.recordingUnavailable`)
/// or the controller refuses the session; an input that fails for good after start stops the source with the
/// reason in `error`. When every input has ended (a recording's end) the engine is flushed and the source stops
/// without an error. Fixes come out on the engine's grid, each released by the first observation after its grid
/// time or by the clock once it is `releaseDelaySeconds` past it: when every beacon goes quiet (or the link is down
/// and reconnecting) the dot keeps coming as last known, its radius growing, until the engine's holdover drops it.
public final class BeaconLocationDataSource: LocationDataSource, @unchecked Sendable {
    // @unchecked: the lets are Sendable; the mutable run state is behind `run`.
    /// Where packets come from, for the single-transport initializer.
    public enum Input: Sendable, Hashable {
        /// A live controller, driven by an `LEScanner` with this configuration.
        case controller(ScanConfiguration)
        /// A recording: packets decoded as they come, no commands sent.
        case recording
    }

    private struct Run {
        var runner: InputRunner?
        var task: Task<Void, Never>?
        var locations = 0
    }

    /// The venue: anchors, path-loss model, optional geographic origin.
    public let venue: Venue
    /// The positioning engine's settings.
    public let engineConfiguration: EngineConfiguration
    /// On a live controller, how far behind the clock the engine's grid is released without packets, seconds:
    /// a packet stamped just before a tick must not come too late for its grid point.
    public static let releaseDelaySeconds = 0.5
    /// Pause before a failed input is restarted; nil: an input's failure stops the source (or fails its start).
    public let restartDelaySeconds: Double?
    /// Whether the clock releases the engine's grid (live inputs), or only observations do (a recording).
    public let releasesByClock: Bool
    private let makeInputs: @Sendable () -> [any ObservationSource]
    private let clock: any BlueDotClock
    private let logger: Logger
    private let run = LockedValue(Run())

    /// Creates a source over the inputs `makeInputs` makes (afresh at every start: a stopped input stays stopped).
    /// Their observations must have the target `self` (`SightingMapper` in self mode). With `restartDelaySeconds`
    /// (a daemon) the source reports started at once and restarts inputs that fail, rather than failing with them.
    public init(inputs makeInputs: @escaping @Sendable () -> [any ObservationSource], venue: Venue,
                engineConfiguration: EngineConfiguration = .moving, clock: any BlueDotClock = SystemClock(),
                restartDelaySeconds: Double? = nil, releasesByClock: Bool = true,
                logger: Logger = Logger(label: "bluedot.beacon-location")) {
        self.makeInputs = makeInputs
        self.restartDelaySeconds = restartDelaySeconds
        self.releasesByClock = releasesByClock
        self.venue = venue
        self.engineConfiguration = engineConfiguration
        self.clock = clock
        self.logger = logger
        super.init()
    }

    /// Creates a source over one transport: a live controller scanned by an `LEScanner`, or a recording read
    /// passively; sightings map to observations of `targetID`.
    public convenience init(transport: any HCITransport, venue: Venue, input: Input = .controller(ScanConfiguration()),
                            engineConfiguration: EngineConfiguration = .moving,
                            targetID: String = Observation.selfTarget, clock: any BlueDotClock = SystemClock(),
                            logger: Logger = Logger(label: "bluedot.beacon-location")) {
        let mapper = SightingMapper(mode: .self, selfTarget: targetID)
        self.init(inputs: {
            switch input {
            case .controller(let configuration):
                [ScannerSource(transport: transport, mapper: mapper, configuration: configuration, clock: clock,
                               logger: logger)]
            case .recording:
                [RecordingSource(name: transport.name, mapper: mapper, clock: clock) { transport }]
            }
        }, venue: venue, engineConfiguration: engineConfiguration, clock: clock, releasesByClock: input != .recording,
        logger: logger)
    }

    /// Counts since the last start.
    public var statistics: BeaconLocationStatistics {
        let (runner, locations) = run.withLock { ($0.runner, $0.locations) }
        var statistics = BeaconLocationStatistics()
        statistics.locations = locations
        guard let runner else { return statistics }
        let inputs = runner.statistics
        statistics.sightings = inputs.reports
        statistics.sightingsWithoutRSSI = inputs.withoutRSSI
        statistics.observations = inputs.observations
        let counters = runner.pipeline?.counters ?? PositioningEngine.Counters()
        statistics.unknownAnchors = counters.unknownAnchors
        statistics.lateOrOutliers = counters.late + counters.outliers
        return statistics
    }

    /// The inputs' counters and the engine's since the last start; nil before the first.
    public var runnerStatistics: (inputs: SourceStatistics, engine: PositioningEngine.Counters)? {
        run.withLock { $0.runner }.map { ($0.statistics, $0.pipeline?.counters ?? PositioningEngine.Counters()) }
    }

    /// Starts the inputs; reports started when the first one delivers, or the failure of one that could not.
    override public func doStart() async {
        guard !venue.anchors.isEmpty else {
            didStartOrFailWithError(BeaconLocationError.venueHasNoAnchors(venue: venue.name))
            return
        }
        let policy = InputRunner.Policy(
            restartDelaySeconds: restartDelaySeconds,
            tickSeconds: releasesByClock ? max(engineConfiguration.intervalSeconds, 0.01) : nil,
            releaseDelaySeconds: Self.releaseDelaySeconds, finishWhenInputsEnd: restartDelaySeconds == nil)
        let runner = InputRunner(
            inputs: makeInputs(), pipeline: PositioningPipeline(venue: venue, configuration: engineConfiguration),
            clock: clock, policy: policy, logger: logger
        ) { [weak self] locations in self?.deliver(locations) }
        // Started is reported from the input's own task before it delivers, so no early fix is ignored.
        // The run holds the source until its inputs stop (`doStop`, their end or a failure).
        let task = Task { [logger] in
            do {
                try await runner.run { self.didStartOrFailWithError(nil) }
                didStartOrFailWithError(nil)  // every input ended before delivering: started, then stopped
                didStop()
            } catch {
                logger.error("beacon location: input stopped: \(error)")
                didStartOrFailWithError(error)  // ignored unless still starting
                didStop(error: error)           // ignored unless started
            }
        }
        run.withLock { $0 = Run(runner: runner, task: task) }
        if restartDelaySeconds != nil { didStartOrFailWithError(nil) }
    }

    /// Stops the inputs (scan disabled, link closed, recording closed), waits for them, and reports stopped.
    override public func doStop() async {
        let (runner, task) = run.withLock { ($0.runner, $0.task) }
        runner?.stop()
        await task?.value
        didStop()
    }

    private func deliver(_ locations: [Location]) {
        run.withLock { $0.locations += locations.count }
        for location in locations { didUpdate(location) }
    }
}
