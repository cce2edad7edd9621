import BeaconLocation
import BlueDotCore
import LocationDisplay
import Logging
import Positioning

/// The gateway's spine: inputs → one `PositioningEngine` → a `LocationSource` whose observers are the outputs.
///
/// Self mode goes through the display engine's data source: a `BeaconLocationDataSource` over the inputs,
/// relayed into a `LocationDataSourceRelay`. Tag mode (and any inputs that name their targets) is a
/// `BeaconLocationSource`. Either way, outputs observe `source`.
public enum GatewaySpine: Sendable {
    /// The gateway locates itself.
    case selfMode(BeaconLocationDataSource, LocationDataSourceRelay)
    /// Fixed receivers locate tags.
    case tags(BeaconLocationSource)
    /// The gateway locates itself indoors and outdoors: GNSS through gpsd handed over with the beacons (none when
    /// gpsd is the only input), relayed like self mode.
    case handover(HandoverLocationDataSource, BeaconLocationDataSource?, LocationDataSourceRelay)

    /// Assembles the spine for `mode` over the inputs `makeInputs` makes.
    public static func make(
        mode: SightingMapper.Mode, makeInputs: @escaping @Sendable () -> [any ObservationSource], venue: Venue,
        engine: EngineConfiguration, clock: any BlueDotClock, restartDelaySeconds: Double, logger: Logger,
        gnss: GPSDLocationDataSource? = nil, beacons hasBeacons: Bool = true
    ) -> GatewaySpine {
        switch mode {
        case .self where gnss != nil:
            let beacons = hasBeacons ? BeaconLocationDataSource(
                inputs: makeInputs, venue: venue, engineConfiguration: engine, clock: clock,
                restartDelaySeconds: restartDelaySeconds, logger: logger) : nil
            let handover = HandoverLocationDataSource(
                beacons: beacons, gnss: gnss!, origin: venue.origin.map(GeographicOrigin.init), clock: clock)
            return .handover(handover, beacons, LocationDataSourceRelay(id: "self", dataSource: handover, clock: clock))
        case .self:
            let data = BeaconLocationDataSource(
                inputs: makeInputs, venue: venue, engineConfiguration: engine, clock: clock,
                restartDelaySeconds: restartDelaySeconds, logger: logger)
            return .selfMode(data, LocationDataSourceRelay(id: "self", dataSource: data, clock: clock))
        case .tag:
            return .tags(BeaconLocationSource(
                inputs: makeInputs(), venue: venue, engineConfiguration: engine, clock: clock,
                restartDelaySeconds: restartDelaySeconds, logger: logger))
        }
    }

    /// The many-target source the outputs observe.
    public var source: LocationSource {
        switch self {
        case .selfMode(_, let relay), .handover(_, _, let relay): relay
        case .tags(let source): source
        }
    }

    /// The inputs' counters and the engine's, for metrics; nil before the data source first started.
    public var statistics: (inputs: SourceStatistics, engine: PositioningEngine.Counters)? {
        switch self {
        case .selfMode(let data, _): data.runnerStatistics
        case .handover(_, let beacons, _): beacons?.runnerStatistics
        case .tags(let source): (source.runner.statistics, source.runner.pipeline?.counters ?? PositioningEngine.Counters())
        }
    }

    /// Runs until cancelled (after `stop()`): starts the data source and follows it, or runs the tag source.
    func run() async {
        switch self {
        case .selfMode(let data as LocationDataSource, let relay), .handover(let data as LocationDataSource, _, let relay):
            let follow = Task { await relay.run() }
            try? await data.start()
            await withTaskCancellationHandler {
                await follow.value
            } onCancel: {
                follow.cancel()
            }
        case .tags(let source):
            await source.run()
        }
    }

    /// Stops the inputs (the scan is disabled, links and files closed).
    func stop() async {
        switch self {
        case .selfMode(let data, _): await data.stop()
        case .handover(let data, _, _): await data.stop()
        case .tags(let source): source.stop()
        }
    }
}
