import BlueDotCore
import Prometheus
import Site

/// A campus view's metrics, in the gateway's registry: its connection, the locations taken, repeated and
/// superseded, the payloads skipped, and per site whether it is stale.
public final class CampusMetrics: Sendable {
    private let registry: PrometheusCollectorRegistry
    private let campus: CampusSource
    private let connected: Gauge
    private let copied = LockedValue(CampusSource.Statistics())

    /// Registers the metrics for `campus` in `metrics`' registry.
    public init(metrics: GatewayMetrics, campus: CampusSource) {
        registry = metrics.registry
        self.campus = campus
        connected = registry.makeGauge(descriptor: Self.name(
            "campus_broker_connected", "", "1 while the campus view is connected to its broker."))
    }

    /// Copies what the view counted since the last call.
    public func record() {
        let stats = campus.statistics
        connected.set(Double(campus.client.isConnected ? 1 : 0))
        let registry = registry
        for site in campus.sites {
            registry.makeGauge(descriptor: Self.name(
                "campus_site_stale", "", "1 while the site's bridge is down or its solver offline."),
                labels: [("site", site.site)])
                .set(Double(site.isStale ? 1 : 0))
        }
        copied.withLock { last in
            func add(_ name: String, _ labels: [(String, String)], _ help: String, _ now: Int, _ before: Int) {
                // Registered at the first call, so that a zero shows before anything is counted.
                let counter = registry.makeCounter(descriptor: Self.name(name, "total", help), labels: labels)
                if now > before { counter.increment(by: Int64(now - before)) }
            }
            add("campus_locations", [], "Locations taken from the sites' solvers.", stats.locations, last.locations)
            add("campus_repeats", [], "Locations dropped as repeats of one already taken (retained messages sent again).",
                stats.repeats, last.repeats)
            add("campus_superseded", [], "Last-known locations of a site dropped for another site's newer answer.",
                stats.superseded, last.superseded)
            for (kind, n) in stats.rejected {
                add("campus_rejected_payloads", [("kind", kind)], "Payloads skipped, by kind.", n, last.rejected[kind] ?? 0)
            }
            last = stats
        }
    }

    private static func name(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "bluedot", metricName: name, unitName: unit, helpText: help)
    }
}
