import BeaconLocation
import BlueDotCore
import GNSS
import LocationBus
import Logging
import Positioning

/// The gateway's spine: inputs → one `PositioningEngine` → one `LocationProducer` whose observers are the outputs.
///
/// Self mode and tag mode are the same `BeaconLocationSource` (self mode's one target is `self`). With gpsd, self
/// mode's producer is a `HandoverLocationSource` relaying the beacons (none when gpsd is the only input) and gpsd.
public struct GatewaySpine: Sendable {
    /// The producer the outputs observe.
    public let source: any LocationProducer
    /// The beacons' producer, when there are beacon inputs: its counters go to the metrics.
    public let beacons: BeaconLocationSource?

    /// Assembles the spine for `mode` over `inputs`; in tag mode the beacons' producer decides its targets'
    /// presence by `presence` (self mode has one target, the gateway, which does not leave itself). `tap` sees every
    /// batch of observations first (the set-up page's list of what is heard); `waitsForAnchors`: run before the
    /// venue has anchors (an editable gateway's first run).
    public static func make(
        mode: SightingMapper.Mode, inputs: [any ObservationSource], venue: Venue,
        engine: EngineConfiguration, clock: any BlueDotClock, restartDelaySeconds: Double, logger: Logger,
        gnss: GPSDLocationSource? = nil, beacons hasBeacons: Bool = true, presence: PresenceRule? = nil,
        waitsForAnchors: Bool = false, tap: (@Sendable (ObservationBatch) -> Void)? = nil
    ) -> GatewaySpine {
        let id = mode == .self ? Observation.selfTarget : "beacons"
        let beacons = hasBeacons ? BeaconLocationSource(
            id: id, inputs: inputs, venue: venue, engineConfiguration: engine, clock: clock,
            restartDelaySeconds: restartDelaySeconds, logger: logger, presence: mode == .self ? nil : presence,
            waitsForAnchors: waitsForAnchors, tap: tap) : nil
        if mode == .self, let gnss {
            let handover = HandoverLocationSource(
                beacons: beacons, gnss: gnss, origin: venue.origin.map(GeographicOrigin.init), clock: clock)
            return GatewaySpine(source: handover, beacons: beacons)
        }
        // Without gpsd there are beacon inputs (the configuration has a source).
        return GatewaySpine(source: beacons!, beacons: beacons)
    }

    /// The inputs' counters and the engine's, for metrics; nil without beacon inputs.
    public var statistics: (inputs: SourceStatistics, engine: PositioningEngine.Counters)? {
        beacons?.runnerStatistics
    }

    /// Runs the producer until `stop()`; a failure leaves it `unavailable` (inputs are restarted, so only a venue
    /// with nothing to locate against fails).
    func run() async {
        try? await source.run()
    }

    /// Stops the inputs (the scan is disabled, links and files closed).
    func stop() async {
        await source.stop()
    }
}
