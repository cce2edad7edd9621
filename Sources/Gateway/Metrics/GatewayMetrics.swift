import Positioning
import Prometheus
import Scanner

/// The gateway's Prometheus metrics (`GET /metrics`), in a registry of its own (no global bootstrap).
///
/// Rates (reports per second, fixes per second) are counters: Prometheus derives rates with `rate()`.
public final class GatewayMetrics: Sendable {
    /// The registry the metrics live in; `/metrics` emits it.
    public let registry: PrometheusCollectorRegistry
    /// Advertising reports (sightings or observation lines) taken in.
    public let reports: Counter
    /// Advertising reports that could not be decoded.
    public let malformedReports: Counter
    /// Observations of anchors the venue does not have.
    public let unknownAnchors: Counter
    /// Observations of one anchor heard by another: links at known places (receivers that hear each other).
    public let anchorLinks: Counter
    /// Fixes emitted.
    public let fixes: Counter
    /// Targets with a current fix.
    public let targetsTracked: Gauge
    /// Seconds from the newest report behind a fix to the fix being published.
    public let reportToFixLatency: DurationHistogram
    /// Times the scanner re-opened its link to the controller.
    public let scannerReconnects: Counter
    /// Times a scanner got its scan back, labelled by `action` (`rearm`, `reopen`) and `reason` (`elsewhere`,
    /// `reset`, `stall`, `failed`): `ScanRecovery`.
    public func scanRecoveries(_ recovery: ScanRecovery) -> Counter {
        registry.makeCounter(
            descriptor: Self.descriptor("scan_recoveries", "total",
                                        "Times a scanner got its scan back, by what it did and why."),
            labels: [("action", recovery.action.rawValue), ("reason", recovery.reason.rawValue)])
    }
    /// Open push-feed connections.
    public let feedSubscribers: Gauge

    /// Creates the metrics in a new registry.
    public init() {
        let r = PrometheusCollectorRegistry()
        let d = Self.descriptor
        registry = r
        reports = r.makeCounter(descriptor: d("advertising_reports", "total", "Advertising reports taken in."))
        malformedReports = r.makeCounter(descriptor: d("malformed_reports", "total", "Advertising reports that could not be decoded."))
        unknownAnchors = r.makeCounter(descriptor: d("unknown_anchor_observations", "total", "Observations of anchors not in the venue."))
        anchorLinks = r.makeCounter(descriptor: d("anchor_link_observations", "total", "Observations of one anchor heard by another (links for self-calibration)."))
        fixes = r.makeCounter(descriptor: d("fixes", "total", "Location fixes emitted."))
        targetsTracked = r.makeGauge(descriptor: d("targets_tracked", "", "Targets with a current fix."))
        reportToFixLatency = r.makeDurationHistogram(
            descriptor: d(
                "report_to_fix_latency", "seconds",
                "From the newest advertising report behind a fix to the fix being published."),
            buckets: [
                .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(50), .milliseconds(100),
                .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5),
            ])
        scannerReconnects = r.makeCounter(descriptor: d("scanner_reconnects", "total", "Times the scanner re-opened the controller link."))
        feedSubscribers = r.makeGauge(descriptor: d("feed_subscribers", "", "Open push-feed connections."))
    }

    /// Sets what the residuals at the fixes say of the site's model against the models in use (`SiteModelError`):
    /// `bluedot_site_model_error{part="level"}` (dB at 4 m) and `{part="exponent"}`, the posterior means, and
    /// `bluedot_site_model_uncertainty{part}`, the size of the error the radius carries. Nothing until the first
    /// fix of an uncalibrated venue; a surveyed venue has none.
    public func record(_ error: SiteModelError?) {
        guard let error else { return }
        let d = Self.descriptor
        for (part, mean, size) in [("level", error.levelDB, error.uncertainty.levelSigmaDB),
                                   ("exponent", error.exponent, error.uncertainty.exponentSigma)] {
            registry.makeGauge(descriptor: d("site_model_error", "",
                                             "The site's model error against the models in use, from the fixes' residuals (level: dB at 4 m)."),
                               labels: [("part", part)]).set(mean)
            registry.makeGauge(descriptor: d("site_model_uncertainty", "",
                                             "The size of that error the radius carries: sqrt(mean^2 + variance)."),
                               labels: [("part", part)]).set(size)
        }
    }

    /// A `bluedot_`-prefixed metric name.
    private static func descriptor(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "bluedot", metricName: name, unitName: unit, helpText: help)
    }

    /// The Prometheus text exposition of every metric.
    public func exposition() -> String {
        registry.emitToString()
    }
}
