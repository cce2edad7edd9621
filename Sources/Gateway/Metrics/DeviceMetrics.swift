import Devices

/// What the device identifier decided, in the gateway's registry: reports of registry devices, of known beacons
/// and of strangers (a count is all that is kept of a stranger), and the resolver's work.
public final class DeviceMetrics: Sendable {
    private let devices: DeviceIdentifier
    private let counters: StatisticsCounters<DeviceIdentifier.Statistics>

    /// Registers the counters for `devices` in `metrics`' registry.
    public init(metrics: GatewayMetrics, devices: DeviceIdentifier) {
        self.devices = devices
        counters = StatisticsCounters(registry: metrics.registry, initial: DeviceIdentifier.Statistics(), rows: [
            ("device_reports", "Reports of registry devices.", { $0.devices }),
            ("beacon_reports", "Reports of known beacons that are no registry device's.", { $0.beacons }),
            ("stranger_reports", "Reports of strangers: counted, never stored or published.", { $0.strangers }),
            ("rpa_resolution_passes", "Private addresses that took a pass of ah over the IRKs.", { $0.resolver.passes }),
            ("rpa_resolved", "Private addresses resolved to a registry device's IRK.", { $0.resolver.resolved }),
        ])
    }

    /// Adds what the identifier counted since the last call.
    public func record() {
        counters.record(devices.statistics)
    }
}
