import BlueDotCore
import Devices
import Prometheus

/// What the device identifier decided, in the gateway's registry: reports of registry devices, of known beacons
/// and of strangers (a count is all that is kept of a stranger), and the resolver's work.
public final class DeviceMetrics: Sendable {
    private let devices: DeviceIdentifier
    private let counters: [(name: String, help: String, value: @Sendable (DeviceIdentifier.Statistics) -> Int, counter: Counter)]
    private let copied = LockedValue(DeviceIdentifier.Statistics())

    /// Registers the counters for `devices` in `metrics`' registry.
    public init(metrics: GatewayMetrics, devices: DeviceIdentifier) {
        self.devices = devices
        let rows: [(String, String, @Sendable (DeviceIdentifier.Statistics) -> Int)] = [
            ("device_reports", "Reports of registry devices.", { $0.devices }),
            ("beacon_reports", "Reports of known beacons that are no registry device's.", { $0.beacons }),
            ("stranger_reports", "Reports of strangers: counted, never stored or published.", { $0.strangers }),
            ("rpa_resolution_passes", "Private addresses that took a pass of ah over the IRKs.", { $0.resolver.passes }),
            ("rpa_resolved", "Private addresses resolved to a registry device's IRK.", { $0.resolver.resolved }),
        ]
        counters = rows.map { name, help, value in
            (name, help, value, metrics.registry.makeCounter(descriptor: MetricNameDescriptor(
                namespace: "bluedot", metricName: name, unitName: "total", helpText: help)))
        }
    }

    /// Adds what the identifier counted since the last call.
    public func record() {
        let now = devices.statistics
        let counters = counters
        copied.withLock { last in
            for row in counters {
                let delta = row.value(now) - row.value(last)
                if delta > 0 { row.counter.increment(by: Int64(delta)) }
            }
            last = now
        }
    }
}
