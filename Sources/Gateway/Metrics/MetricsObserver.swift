import BeaconLocation
import BlueDotCore
import LocationBus
import Positioning
import Prometheus

/// An observer of the spine's `LocationSource` that counts fixes and records the report-to-fix latency (clock
/// time at delivery minus `Location.reportedAt`) in the gateway's metrics.
public final class MetricsObserver: LocationSourceObserver, Sendable {
    /// Where counts go.
    public let metrics: GatewayMetrics
    private let clock: any BlueDotClock
    private let copied = LockedValue((inputs: SourceStatistics(), unknownAnchors: 0, anchorLinks: 0))

    /// Creates the observer.
    public init(metrics: GatewayMetrics, clock: any BlueDotClock) {
        self.metrics = metrics
        self.clock = clock
    }

    /// Counts fixes and records their latency.
    public func onLocationsUpdated(_ locations: [Location], source: LocationSource) {
        let now = clock.now()
        for location in locations {
            metrics.fixes.increment()
            if let reportedAt = location.reportedAt {
                metrics.reportToFixLatency.record(.nanoseconds(Int64(max(0, now - reportedAt) * 1e9)))
            }
        }
    }

    /// Adds what the inputs and the engine counted since the last call to the metrics (reports, malformed
    /// reports, reconnects, observations of unknown anchors, links between anchors).
    public func record(inputs: SourceStatistics, engine: PositioningEngine.Counters) {
        let metrics = metrics
        copied.withLock { last in
            func add(_ counter: Counter, _ now: Int, _ before: Int) {
                if now > before { counter.increment(by: Int64(now - before)) }
            }
            add(metrics.reports, inputs.reports, last.inputs.reports)
            add(metrics.malformedReports, inputs.malformed, last.inputs.malformed)
            add(metrics.scannerReconnects, inputs.reconnects, last.inputs.reconnects)
            for (recovery, count) in inputs.scanRecoveries {
                add(metrics.scanRecoveries(recovery), count, last.inputs.scanRecoveries[recovery] ?? 0)
            }
            add(metrics.unknownAnchors, engine.unknownAnchors, last.unknownAnchors)
            add(metrics.anchorLinks, engine.anchorLinks, last.anchorLinks)
            last = (inputs, engine.unknownAnchors, engine.anchorLinks)
        }
    }

    /// Nothing to count.
    public func onLocationsDeleted(_ targetIDs: [String], source: LocationSource) {}

    /// Nothing to count.
    public func onStatusChanged(_ status: LocationSourceStatus, source: LocationSource) {}
}
