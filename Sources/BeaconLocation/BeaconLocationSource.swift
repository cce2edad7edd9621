import BlueDotCore
import LocationBus
import Logging
import Positioning

/// Locations from Bluetooth: the spine's producer, in self mode (one target, `self`: the gateway hears fixed
/// beacons) and tag mode (many targets: fixed receivers hear tags) alike. Its inputs feed one `PositioningPipeline`
/// through an `InputRunner`; every fix updates its target, and observers (the web feed, the API, metrics, MQTT,
/// Home Assistant, the history) follow the source. `BeaconLocationDataSource` shows its `self` target to a
/// `LocationDisplay`.
///
/// Fixes come out on the engine's grid, each released by the first observation after its grid time or, with
/// `releasesByClock`, by the clock once it is `releaseDelaySeconds` past it: when every anchor goes quiet (or the
/// link is down and reconnecting) a target keeps coming as last known, its radius growing, until the engine's
/// holdover drops it.
///
/// Status: `initialising` until an input delivers, then `available`; `inactive` after `stop()` or when every
/// input has ended (without restarts); `unavailable` when the run fails (it does not while failed inputs are
/// restarted, `restartDelaySeconds`).
public final class BeaconLocationSource: LocationSource, LocationProducer, @unchecked Sendable {
    // @unchecked: the lets are Sendable; LocationSource guards its state.
    /// On a live input, how far behind the clock the engine's grid is released without packets, seconds: a packet
    /// stamped just before a tick must not come too late for its grid point.
    public static let releaseDelaySeconds = 0.5
    /// The runner of the inputs into the pipeline.
    public let runner: InputRunner
    /// The venue located in; `use(venue:presence:)` replaces it.
    public var venue: Venue { runner.pipeline?.venue ?? Venue(name: "", anchors: []) }
    /// Whether `run()` goes on with a venue that has no anchors yet (a gateway being set up: `--editable`).
    public let waitsForAnchors: Bool
    private let located = LockedValue(0)

    /// Creates a source over `inputs` into a pipeline on `venue`; nothing runs until `run()`. With
    /// `restartDelaySeconds` (a daemon) failed inputs are restarted after it and the source runs until `stop()`;
    /// without, a failed input ends the run with its error and the source ends with its inputs (a replay), its
    /// pending fixes flushed. `releasesByClock`: whether the clock releases the engine's grid (live inputs) or only
    /// observations do (a recording read as fast as a test clock allows). `presence`: the rule that decides the
    /// targets' presence (`LocationSource`). `tap` sees every batch of observations before the engine does
    /// (`InputRunner`). `waitsForAnchors`: run with a venue that has no anchors yet, until `use(venue:presence:)`
    /// gives one.
    public init(
        id: String, inputs: [any ObservationSource], venue: Venue, engineConfiguration: EngineConfiguration = .moving,
        deleteAfterSeconds: Double = 60, clock: any BlueDotClock = SystemClock(), restartDelaySeconds: Double? = 2,
        releasesByClock: Bool = true, logger: Logger = Logger(label: "bluedot.beacon-location"),
        presence: PresenceRule? = nil, waitsForAnchors: Bool = false,
        tap: (@Sendable (ObservationBatch) -> Void)? = nil
    ) {
        let policy = InputRunner.Policy(
            restartDelaySeconds: restartDelaySeconds,
            tickSeconds: releasesByClock ? max(engineConfiguration.intervalSeconds, 0.01) : nil,
            releaseDelaySeconds: Self.releaseDelaySeconds, finishWhenInputsEnd: restartDelaySeconds == nil)
        let relay = LockedValue<BeaconLocationSource?>(nil)
        self.waitsForAnchors = waitsForAnchors
        runner = InputRunner(
            inputs: inputs, pipeline: PositioningPipeline(venue: venue, configuration: engineConfiguration),
            clock: clock, policy: policy, logger: logger, tap: tap
        ) { locations in relay.value?.deliver(locations) }
        super.init(id: id, deleteAfterSeconds: deleteAfterSeconds, clock: clock, presence: presence)
        relay.withLock { $0 = self }
    }

    /// Runs the inputs until `stop()` or their end; status `available` once one delivers. Throws when the venue
    /// has no anchors (unless it `waitsForAnchors`), or an input fails without restarts.
    public func run() async throws {
        guard waitsForAnchors || !venue.anchors.isEmpty else {
            setStatus(.unavailable)
            throw BeaconLocationError.venueHasNoAnchors(venue: venue.name)
        }
        do {
            try await runner.run { [weak self] in self?.setStatus(.available) }
            setStatus(.inactive)
        } catch {
            setStatus(.unavailable)
            throw error
        }
    }

    /// Locates in `venue` from the next observation on (`PositioningPipeline.use(venue:)`: every target starts
    /// afresh), its presence decided by `presence` when the source decides presence.
    public func use(venue: Venue, presence: PresenceRule?) {
        runner.pipeline?.use(venue: venue)
        if let presence, presenceRule != nil { use(presence: presence) }
    }

    /// Stops every input; `run` returns and the status becomes `inactive`.
    public func stop() {
        runner.stop()
        setStatus(.inactive)
    }

    /// Counts since creation: the inputs', the engine's, and the locations made.
    public var statistics: BeaconLocationStatistics {
        let inputs = runner.statistics
        let counters = runner.pipeline?.counters ?? PositioningEngine.Counters()
        var statistics = BeaconLocationStatistics()
        statistics.locations = located.value
        statistics.sightings = inputs.reports
        statistics.sightingsWithoutRSSI = inputs.withoutRSSI
        statistics.observations = inputs.observations
        statistics.unknownAnchors = counters.unknownAnchors
        statistics.lateOrOutliers = counters.late + counters.outliers
        return statistics
    }

    /// The inputs' counters and the engine's, for metrics.
    public var runnerStatistics: (inputs: SourceStatistics, engine: PositioningEngine.Counters) {
        (runner.statistics, runner.pipeline?.counters ?? PositioningEngine.Counters())
    }

    private func deliver(_ locations: [Location]) {
        located.withLock { $0 += locations.count }
        update(locations)
    }
}
