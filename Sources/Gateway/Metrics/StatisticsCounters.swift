import BlueDotCore
import Prometheus

/// Prometheus counters that follow a source's running totals (`bluedot_<name>_total`): each `record(_:)` adds
/// what each total grew by since the last call. The device identifier's and gpsd's metrics are kept this way.
final class StatisticsCounters<Statistics: Sendable>: Sendable {
    /// One counter: its name (without `bluedot_` and `_total`), its help, and the total it follows.
    typealias Row = (name: String, help: String, value: @Sendable (Statistics) -> Int)

    private let counters: [(value: @Sendable (Statistics) -> Int, counter: Counter)]
    private let last: LockedValue<Statistics>

    /// Registers a counter per row in `registry`; `initial` is the totals' starting point (all zero).
    init(registry: PrometheusCollectorRegistry, initial: Statistics, rows: [Row]) {
        counters = rows.map { row in
            (row.value, registry.makeCounter(descriptor: MetricNameDescriptor(
                namespace: "bluedot", metricName: row.name, unitName: "total", helpText: row.help)))
        }
        last = LockedValue(initial)
    }

    /// Adds to each counter what its total grew by since the last call.
    func record(_ now: Statistics) {
        let counters = counters
        last.withLock { last in
            for row in counters {
                let delta = row.value(now) - row.value(last)
                if delta > 0 { row.counter.increment(by: Int64(delta)) }
            }
            last = now
        }
    }
}
