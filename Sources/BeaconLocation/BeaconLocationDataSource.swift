import BlueDotCore
import HCI
import LocationBus
import LocationDisplay
import Logging
import Positioning
import Scanner

/// The blue dot from Bluetooth beacons for a `LocationDisplay`: the `self` target of a `BeaconLocationSource`,
/// made afresh at every start, at the edge of the bus (`LocationSourceDataSource`). Its inputs (a live controller,
/// a recording, an observation file; several at once) feed one pipeline, and each fix comes out as a `Location`
/// (`didUpdate`), with latitude and longitude when the venue has an origin.
///
/// Start succeeds once the first input delivers (the scan runs, the recording is open) and fails when an input
/// fails before that (the scanner's `ScannerError.transportUnavailable`, `BeaconLocationError.recordingUnavailable`),
/// the controller refuses the session, or the venue has no anchors; an input that fails for good after start stops
/// the source with the reason in `error`. When every input has ended (a recording's end) the engine is flushed and
/// the source stops without an error. With `restartDelaySeconds` (a daemon) the source reports started at once and
/// restarts inputs that fail.
public final class BeaconLocationDataSource: LocationSourceDataSource, @unchecked Sendable {
    // @unchecked: the lets are Sendable; the run state is the superclass's.
    /// Where packets come from, for the single-transport initializer.
    public enum Input: Sendable, Hashable {
        /// A live controller, driven by an `LEScanner` with this configuration.
        case controller(ScanConfiguration)
        /// A recording: packets decoded as they come, no commands sent.
        case recording
    }

    /// The venue: anchors, path-loss model, optional geographic origin.
    public let venue: Venue
    /// The positioning engine's settings.
    public let engineConfiguration: EngineConfiguration

    /// Creates a source over the inputs `makeInputs` makes (afresh at every start: a stopped input stays stopped).
    /// Their observations must have the target `self` (`SightingMapper` in self mode).
    public init(inputs makeInputs: @escaping @Sendable () -> [any ObservationSource], venue: Venue,
                engineConfiguration: EngineConfiguration = .moving, clock: any BlueDotClock = SystemClock(),
                restartDelaySeconds: Double? = nil, releasesByClock: Bool = true,
                logger: Logger = Logger(label: "bluedot.beacon-location")) {
        self.venue = venue
        self.engineConfiguration = engineConfiguration
        super.init(targetID: Observation.selfTarget, startsAtOnce: restartDelaySeconds != nil) {
            BeaconLocationSource(
                id: Observation.selfTarget, inputs: makeInputs(), venue: venue,
                engineConfiguration: engineConfiguration, clock: clock, restartDelaySeconds: restartDelaySeconds,
                releasesByClock: releasesByClock, logger: logger)
        }
    }

    /// Creates a source over one transport: a live controller scanned by an `LEScanner`, or a recording read
    /// passively; sightings map to observations of `self`.
    public convenience init(transport: any HCITransport, venue: Venue, input: Input = .controller(ScanConfiguration()),
                            engineConfiguration: EngineConfiguration = .moving, clock: any BlueDotClock = SystemClock(),
                            logger: Logger = Logger(label: "bluedot.beacon-location")) {
        let mapper = SightingMapper(mode: .self)
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

    /// The producer of the current (or last) run; nil before the first start.
    public var beacons: BeaconLocationSource? { producer as? BeaconLocationSource }

    /// Counts since the last start.
    public var statistics: BeaconLocationStatistics { beacons?.statistics ?? BeaconLocationStatistics() }
}
