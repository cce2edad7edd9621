import BlueDotCore
import LocationDisplay
import Logging
import Positioning

/// Many targets from Bluetooth beacons (tag mode, or any inputs whose observations name their targets): the
/// MapsIndoors-style `LocationSource` of the spine. Its inputs feed one `PositioningPipeline` through an
/// `InputRunner`; every fix updates its target, and observers (the web feed, the API, metrics; MQTT, Home
/// Assistant and history next) follow the source.
///
/// Status: `initialising` until an input delivers, then `available`; `inactive` after `stop()`; `unavailable` when
/// the run ends with an error (it does not while failed inputs are restarted, `restartDelaySeconds`).
public final class BeaconLocationSource: LocationSource, @unchecked Sendable {
    // @unchecked: the lets are Sendable; LocationSource guards its state.
    /// The runner of the inputs into the pipeline.
    public let runner: InputRunner

    /// Creates a source over `inputs` into a pipeline on `venue`; nothing runs until `run()`.
    public init(
        id: String = "beacons", inputs: [any ObservationSource], venue: Venue, engineConfiguration: EngineConfiguration,
        deleteAfterSeconds: Double = 60, clock: any BlueDotClock = SystemClock(), restartDelaySeconds: Double = 2,
        logger: Logger
    ) {
        let pipeline = PositioningPipeline(venue: venue, configuration: engineConfiguration)
        let relay = LockedValue<LocationSource?>(nil)
        runner = InputRunner(
            inputs: inputs, pipeline: pipeline, clock: clock,
            policy: InputRunner.Policy(restartDelaySeconds: restartDelaySeconds), logger: logger
        ) { locations in relay.value?.update(locations) }
        super.init(id: id, deleteAfterSeconds: deleteAfterSeconds, clock: clock)
        relay.withLock { $0 = self }
    }

    /// Runs the inputs until `stop()`; status `available` once one delivers.
    public func run() async {
        do {
            try await runner.run { [weak self] in self?.setStatus(.available) }
        } catch {
            setStatus(.unavailable)
        }
    }

    /// Stops every input; `run` returns and the status becomes `inactive`.
    public func stop() {
        runner.stop()
        setStatus(.inactive)
    }
}
