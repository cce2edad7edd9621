import BlueDotCore
import Prometheus
import Site

/// The solver's site metrics, in the gateway's registry: per receiver its status, rate and clock offset; for the
/// site its sightings, late and skipped payloads, and the locations published.
public final class SiteMetrics: Sendable {
    private let registry: PrometheusCollectorRegistry
    private let site: SiteSource
    private let publisher: LocationPublisher
    private let connected: Gauge
    private let publishLagP99: Gauge
    private let copied = LockedValue(Copied())

    private struct Copied {
        var site = SiteSource.SiteStatistics()
        var receivers: [String: (sightings: Int, late: Int)] = [:]
        var published = 0
    }

    /// Registers the metrics for `site` and `publisher` in `metrics`' registry.
    public init(metrics: GatewayMetrics, site: SiteSource, publisher: LocationPublisher) {
        registry = metrics.registry
        self.site = site
        self.publisher = publisher
        connected = registry.makeGauge(descriptor: Self.name(
            "site_broker_connected", "", "1 while the solver is connected to the site's broker."))
        publishLagP99 = registry.makeGauge(descriptor: Self.name(
            "site_location_publish_lag_p99", "seconds",
            "99th percentile of clock time at publishing minus the fix time, last 4096 fixes."))
    }

    /// Copies what the site source and the publisher counted since the last call.
    public func record() {
        let stats = site.siteStatistics
        let receivers = site.receivers
        let published = publisher.statistics.published
        connected.set(Double(site.client.isConnected ? 1 : 0))
        if let lag = publisher.publishLag { publishLagP99.set(lag.p99) }
        let registry = registry
        copied.withLock { last in
            func add(_ name: String, _ labels: [(String, String)], _ help: String, _ now: Int, _ before: Int) {
                guard now > before else { return }
                registry.makeCounter(descriptor: Self.name(name, "total", help), labels: labels)
                    .increment(by: Int64(now - before))
            }
            add("site_sightings", [], "Sightings read from the site's receivers.", stats.sightings,
                last.site.sightings)
            add("site_stranger_sightings", [],
                "Sightings of strangers (no registry device, no known beacon), dropped; ESPresense nodes publish everyone.",
                stats.strangers, last.site.strangers)
            add("site_late_sightings", [], "Sightings later than the reorder window (dropped).",
                stats.late, last.site.late)
            add("site_reordered_sightings", [], "Sightings put back in time order.",
                stats.reordered, last.site.reordered)
            add("site_unknown_receiver_sightings", [], "Sightings from receivers not in the venue.",
                stats.unknownReceiverSightings, last.site.unknownReceiverSightings)
            for (kind, n) in stats.rejected {
                add("site_rejected_payloads", [("kind", kind)], "Payloads skipped, by kind.", n,
                    last.site.rejected[kind] ?? 0)
            }
            add("site_locations_published", [], "Fixes published to the site's location topics.",
                published, last.published)
            for r in receivers {
                let labels = [("receiver", r.id)]
                let before = last.receivers[r.id] ?? (0, 0)
                add("site_receiver_sightings", labels, "Sightings per receiver.", r.sightings,
                    before.sightings)
                add("site_receiver_late_sightings", labels, "Late sightings per receiver.", r.late,
                    before.late)
                registry.makeGauge(descriptor: Self.name(
                    "site_receiver_online", "", "1 when the receiver's status is online, 0 when offline, -1 unknown."),
                    labels: labels)
                    .set(Double(r.status == "online" ? 1 : r.status == "offline" ? 0 : -1))
                if let offset = r.clockOffset {
                    registry.makeGauge(descriptor: Self.name(
                        "site_receiver_clock_offset", "seconds", "Seconds added to the receiver's clock to read the solver's."),
                        labels: labels)
                        .set(offset)
                }
                last.receivers[r.id] = (r.sightings, r.late)
            }
            last.site = stats
            last.published = published
        }
    }

    private static func name(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "bluedot", metricName: name, unitName: unit, helpText: help)
    }
}
