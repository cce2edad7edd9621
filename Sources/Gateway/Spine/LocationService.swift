import BeaconLocation
import BlueDotCore
import LocationBus
import Logging
import ServiceLifecycle

/// Runs the spine as a lifecycle service: the inputs into the engine, the `LocationSource` with its observers
/// (the web feed, metrics, and the outputs), the rooms' occupancy relay, expiry of targets nobody hears, and the
/// feed's staleness sweep, all on the one clock.
///
/// Every second (on the clock) it sweeps the hub (stale targets go grey), deletes targets not updated for the
/// source's timeout, and copies the inputs' and engine's counters into the metrics. On graceful shutdown
/// (SIGTERM, SIGINT) it stops the inputs, waits for them, runs `onStop` (flushes the recording) and closes the
/// feed, so web clients disconnect cleanly.
public struct LocationService: Service {
    /// The spine.
    public let spine: GatewaySpine
    /// The web feed, an observer of the spine's source.
    public let hub: LocationHub
    /// The metrics.
    public let metrics: GatewayMetrics
    private let clock: any BlueDotClock
    private let onStop: @Sendable () -> Void
    private let onHousekeeping: @Sendable () -> Void
    private let logger: Logger
    private let metricsObserver: MetricsObserver
    private let observers: [any LocationSourceObserver]
    private let rooms: RoomOccupancySource?

    /// Creates the service and registers the hub, a `MetricsObserver` and `outputs` (the site's location
    /// publisher, Home Assistant discovery, the history) on the spine's source; `onHousekeeping` runs with each
    /// copy of the counters (the site's metrics); `onStop` runs once after the inputs have stopped. `rooms`, a relay of the spine's source, runs
    /// while the service does.
    public init(
        spine: GatewaySpine, hub: LocationHub, metrics: GatewayMetrics, clock: any BlueDotClock, logger: Logger,
        outputs: [any LocationSourceObserver] = [], rooms: RoomOccupancySource? = nil,
        onHousekeeping: @escaping @Sendable () -> Void = {}, onStop: @escaping @Sendable () -> Void = {}
    ) {
        self.rooms = rooms
        self.onHousekeeping = onHousekeeping
        self.spine = spine
        self.hub = hub
        self.metrics = metrics
        self.clock = clock
        self.logger = logger
        self.onStop = onStop
        metricsObserver = MetricsObserver(metrics: metrics, clock: clock)
        observers = [hub, metricsObserver] + outputs
        for observer in observers { spine.source.addObserver(observer) }
    }

    /// Runs until graceful shutdown or cancellation.
    public func run() async throws {
        let spine = spine
        rooms?.start()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await spine.run() }
            group.addTask { await self.housekeeping() }
            try? await gracefulShutdown()
            await spine.stop()
            group.cancelAll()
        }
        copyStatistics()
        onStop()
        rooms?.stop()
        hub.close()
        for observer in observers { spine.source.removeObserver(observer) }
        logger.info("inputs stopped", metadata: ["fixes": "\(spine.statistics?.engine.fixes ?? 0)"])
    }

    /// Once a second until cancelled: staleness, expiry, counters.
    private func housekeeping() async {
        var next = clock.now() + 1
        while (try? await clock.sleep(until: next)) != nil {
            next += 1
            hub.sweep()
            spine.source.expireStale()
            copyStatistics()
        }
    }

    /// The inputs' and engine's counters and the hub's gauges into the metrics.
    private func copyStatistics() {
        if let (inputs, engine) = spine.statistics { metricsObserver.record(inputs: inputs, engine: engine) }
        metrics.targetsTracked.set(Double(hub.targetCount))
        metrics.feedSubscribers.set(Double(hub.subscriberCount))
        onHousekeeping()
    }
}
