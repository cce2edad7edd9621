import Formats

/// `bluedot devices import --espresense config.yaml`: the companion's `devices` as registry devices.
///
/// `irk:<hex>` ids give the device's IRK, taken as written: ESPresense uses the 32 hex digits as the AES key,
/// most significant byte first, which is the registry's order (no reversal; a key copied from Apple's keychain
/// must be reversed before ESPresense takes it, and so before it gets here). `iBeacon:<uuid>-<major>-<minor>`
/// ids give the canonical iBeacon id. Every id is also kept as the device's `espresense` id, so that the nodes'
/// reports of it map to the same device as BlueDot's own resolution. Patterns (`phone:*`) are noted and skipped.
public enum ESPresenseDevices {
    /// The registry devices of `entries`, with a note for each entry skipped.
    public static func devices(_ entries: [ESPresenseConfigDevices.Entry], file: String)
        throws(DeviceRegistryError) -> (devices: [Device], notes: [String])
    {
        var naming = DeviceNaming()
        var devices: [Device] = []
        var notes: [String] = []
        for e in entries {
            let place = "\(file):\(e.line.map(String.init) ?? "?"): \(e.path)"
            if e.isPattern {
                notes.append("\(place): \"\(e.id)\" is a pattern, not one device; skipped")
                continue
            }
            let lower = e.id.lowercased()
            var d = Device(id: naming.id(for: e.name ?? e.id, fallback: "espresense"), name: e.name ?? e.id)
            if lower.hasPrefix("irk:") {
                guard let irk = IdentityResolvingKey(hex: lower.dropFirst(4)) else {
                    throw DeviceRegistryError(file: file, line: e.line, field: "\(e.path).id",
                                              message: "an irk: id needs 32 hex digits, got \"\(e.id)\"")
                }
                d.irks = [irk]
            } else if lower.hasPrefix("ibeacon:"), let canonical = ESPresenseDevices.iBeacon(lower) {
                d.beacons = [canonical]
            } else {
                d.espresense = [lower]
            }
            devices.append(d)
        }
        return (devices, notes)
    }

    /// ESPresense's `ibeacon:<uuid>-<major>-<minor>` as the canonical `ibeacon:<uuid>:<major>:<minor>`.
    static func iBeacon(_ id: String) -> String? {
        let parts = id.dropFirst("ibeacon:".count).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 7 else { return nil }
        return BeaconID.canonical("ibeacon:\(parts.prefix(5).joined(separator: "-")):\(parts[5]):\(parts[6])")
    }
}
