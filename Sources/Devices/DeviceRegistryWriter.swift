import BlueDotCore
import JSON

/// Writes a registry file (`docs/formats.md`, "Devices"): what the importers print, one device per line, the
/// fields in the order of the format's example, an identity given once as a string and several as a list.
public enum DeviceRegistryWriter {
    /// The registry's JSON text, ending in a newline.
    public static func text(_ registry: DeviceRegistry) -> String {
        let lines = registry.devices.map { d -> String in
            var w = JSONObjectWriter()
            w.string("id", d.id)
            w.string("name", d.name)
            func identities(_ key: String, _ values: [String]) {
                guard !values.isEmpty else { return }
                if values.count == 1 { w.string(key, values[0]); return }
                w.raw(key, "[" + values.map(JSONText.quoted).joined(separator: ", ") + "]")
            }
            identities("irk", d.irks.map(\.hex))
            for kind in ["ibeacon", "eddystone", "altbeacon"] {
                identities(kind, d.beacons.filter { $0.hasPrefix(kind + ":") })
            }
            identities("address", d.addresses.map(\.description))
            identities("espresense", d.espresense)
            return "  " + w.finish()
        }
        return "{\"devices\": [\n" + lines.joined(separator: ",\n") + (lines.isEmpty ? "" : "\n") + "]}\n"
    }
}
