import BeaconLocation
import GNSS
import Prometheus

/// gpsd's link and what came over it (`--gpsd`): whether it is connected now, and the source's counts.
public final class GNSSMetrics: Sendable {
    private let gpsd: GPSDLocationSource
    private let connected: Gauge
    private let counters: StatisticsCounters<GPSDStatistics>

    /// Registers the metrics for `gpsd` in `metrics`' registry.
    public init(metrics: GatewayMetrics, gpsd: GPSDLocationSource) {
        self.gpsd = gpsd
        connected = metrics.registry.makeGauge(descriptor: MetricNameDescriptor(
            namespace: "bluedot", metricName: "gpsd_connected", unitName: "",
            helpText: "1 while the link to gpsd is up."))
        counters = StatisticsCounters(registry: metrics.registry, initial: GPSDStatistics(), rows: [
            ("gpsd_fixes", "gpsd reports with a 2D or 3D fix.", { $0.fixes }),
            ("gpsd_no_fix_reports", "gpsd reports without a fix: the dot is grey.", { $0.noFix }),
            ("gpsd_headings", "Headings from gpsd (ATT).", { $0.headings }),
            ("gpsd_malformed_lines", "Lines from gpsd that were no report it documents: counted and skipped.",
             { $0.malformed }),
            ("gpsd_reconnects", "Times the link to gpsd was lost or refused and tried again.", { $0.reconnects }),
        ])
    }

    /// Sets the link's state and adds what the source counted since the last call.
    public func record() {
        if case .connected = gpsd.connectionState { connected.set(Double(1)) } else { connected.set(Double(0)) }
        counters.record(gpsd.statistics)
    }
}
