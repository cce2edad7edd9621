import Positioning
import Synchronization

/// The gateway's positioning step: observations in, fixes out to the hub, counted in the metrics.
///
/// One `PositioningEngine` (the streaming engine: a fix per target on its time grid, causal); each fix is
/// published with the wall time of the newest report of its target, and the report-to-fix latency recorded.
public final class Pipeline: Sendable {
    private struct State: Sendable {
        var engine: PositioningEngine
        var lastArrival: [String: Double] = [:]
        var countedUnknown = 0
    }

    /// The venue the engine positions in.
    public let venue: Venue
    /// Where fixes go.
    public let hub: LocationHub
    /// Where counts go.
    public let metrics: GatewayMetrics
    private let wallClock: @Sendable () -> Double
    private let projection: GeoProjection?
    private let state: Mutex<State>

    /// Creates a pipeline over `venue` with the engine configuration given.
    public init(
        venue: Venue, configuration: EngineConfiguration, hub: LocationHub, metrics: GatewayMetrics,
        wallClock: @escaping @Sendable () -> Double
    ) {
        self.venue = venue
        self.hub = hub
        self.metrics = metrics
        self.wallClock = wallClock
        projection = venue.origin.map(GeoProjection.init)
        state = Mutex(State(engine: PositioningEngine(venue: venue, configuration: configuration)))
    }

    /// Takes one observation whose report arrived at wall time `arrivedAt`; publishes the fixes it completes.
    public func ingest(_ o: Observation, arrivedAt: Double) {
        let (fixes, arrivals, unknown) = state.withLock { s in
            let fixes = s.engine.ingest(o)
            let arrivals = fixes.map { s.lastArrival[$0.target] }
            if s.engine.counters.unknownAnchors == s.countedUnknown {
                s.lastArrival[o.target] = arrivedAt
            }
            let unknown = s.engine.counters.unknownAnchors - s.countedUnknown
            s.countedUnknown = s.engine.counters.unknownAnchors
            return (fixes, arrivals, unknown)
        }
        if unknown > 0 { metrics.unknownAnchors.increment(by: Int64(unknown)) }
        publish(fixes, arrivals: arrivals)
    }

    /// Releases every grid point before observation time `t` (`PositioningEngine.advance(to:)`) and publishes
    /// those fixes: targets nobody hears keep getting last-known fixes until the engine's holdover ends.
    public func advance(to t: Double) {
        let (fixes, arrivals) = state.withLock { s in
            let fixes = s.engine.advance(to: t)
            return (fixes, fixes.map { s.lastArrival[$0.target] })
        }
        publish(fixes, arrivals: arrivals)
    }

    private func publish(_ fixes: [LocationFix], arrivals: [Double?]) {
        guard !fixes.isEmpty else { return }
        let now = wallClock()
        for (engineFix, arrival) in zip(fixes, arrivals) {
            let fix = projection?.geographic(engineFix) ?? engineFix
            hub.publish(fix, reportedAt: arrival)
            metrics.fixes.increment()
            if let arrival {
                metrics.reportToFixLatency.record(.nanoseconds(Int64(max(0, now - arrival) * 1e9)))
            }
        }
        metrics.targetsTracked.set(Double(hub.targetCount))
    }

    /// Number of targets the engine is tracking.
    public var liveTargets: Int { state.withLock { $0.engine.liveTargets } }

    /// The engine's counters.
    public var counters: PositioningEngine.Counters { state.withLock { $0.engine.counters } }
}
