import BlueDotCore
import Formats
import FoundationEssentials
import HCI
import JSON
import SystemIO

/// Reads registry files (`docs/formats.md`, "Devices"): `{"devices": [{"id", "name", "irk", "ibeacon",
/// "eddystone", "altbeacon", "address", "espresense"}, ...]}`.
///
/// Strict, unlike the other formats' readers: an unknown field stops the load, because a misspelt `irk` would
/// otherwise leave a phone silently untracked. Each identity field takes one string or a list of them. Checked:
/// ids (`Device.isValidID`, unique), IRKs (32 hex digits), beacon ids in canonical form (upper case and an
/// AltBeacon id1 written as a UUID are made canonical), addresses (`AA:BB:CC:DD:EE:FF`), and that no identity
/// belongs to two devices. Every error names the file and the field.
public enum DeviceRegistryFile {
    /// The fields a device may have.
    public static let deviceFields: Set<String> = [
        "id", "name", "irk", "ibeacon", "eddystone", "altbeacon", "address", "espresense",
    ]

    /// Loads the registry at `path`; errors name the file by its last path component.
    public static func load(path: String) throws(DeviceRegistryError) -> DeviceRegistry {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        let data: [UInt8]
        do { data = try WholeFile.read(path) } catch {
            throw DeviceRegistryError(file: file, field: "", message: "\(error)")
        }
        return try parse(data, file: file)
    }

    /// Parses registry JSON; `file` names it in errors.
    public static func parse(_ utf8: [UInt8], file: String) throws(DeviceRegistryError) -> DeviceRegistry {
        let document: JSONValue
        do {
            document = try JSONValue.parse(utf8)
        } catch {
            let (line, column) = VenueLoader.position(of: error.offset ?? 0, in: utf8)
            throw DeviceRegistryError(file: file, line: line, column: column, field: "", message: error.message)
        }
        guard case .object(let root) = document else {
            throw DeviceRegistryError(file: file, field: "", message: "expected an object, got \(document.kindName)")
        }
        if let unknown = root.keys.sorted().first(where: { $0 != "devices" }) {
            throw DeviceRegistryError(file: file, field: unknown, message: "unknown field (a registry has devices)")
        }
        guard let list = root["devices"] else {
            throw DeviceRegistryError(file: file, field: "devices", message: "missing")
        }
        guard case .array(let entries) = list else {
            throw DeviceRegistryError(file: file, field: "devices", message: "expected an array, got \(list.kindName)")
        }
        var devices: [Device] = []
        for (i, entry) in entries.enumerated() {
            devices.append(try device(entry, path: "devices[\(i)]", file: file))
        }
        return try DeviceRegistry(devices: devices, file: file)
    }

    private static func device(_ value: JSONValue, path: String, file: String) throws(DeviceRegistryError) -> Device {
        func fail(_ field: String, _ message: String) -> DeviceRegistryError {
            DeviceRegistryError(file: file, field: field.isEmpty ? path : "\(path).\(field)", message: message)
        }
        guard case .object(let fields) = value else { throw fail("", "expected an object, got \(value.kindName)") }
        if let unknown = fields.keys.sorted().first(where: { !deviceFields.contains($0) }) {
            throw fail(unknown, "unknown field (a device has \(deviceFields.sorted().joined(separator: ", ")))")
        }
        func strings(_ key: String) throws(DeviceRegistryError) -> [String] {
            switch fields[key] {
            case nil, .null?: return []
            case .string(let s)?: return [s]
            case .array(let items)?:
                var out: [String] = []
                for (k, item) in items.enumerated() {
                    guard case .string(let s) = item else {
                        throw fail("\(key)[\(k)]", "expected a string, got \(item.kindName)")
                    }
                    out.append(s)
                }
                return out
            case let other?: throw fail(key, "expected a string or a list of strings, got \(other.kindName)")
            }
        }
        guard case .string(let id)? = fields["id"] else {
            throw fail("id", fields["id"].map { "expected a string, got \($0.kindName)" } ?? "missing")
        }
        guard Device.isValidID(id) else {
            throw fail("id", "\"\(id)\" is not an id: lower-case letters, digits, - and _")
        }
        var name = id
        switch fields["name"] {
        case nil, .null?: break
        case .string(let s)? where !s.trimmingBlanks().isEmpty: name = s
        case let other?: throw fail("name", "expected a non-empty string, got \(other.kindName)")
        }
        var device = Device(id: id, name: name)
        for text in try strings("irk") {
            guard let irk = IdentityResolvingKey(hex: text) else {
                throw fail("irk", "expected 32 hex digits (16 bytes, most significant first), got \"\(text)\"")
            }
            device.irks.append(irk)
        }
        for kind in ["ibeacon", "eddystone", "altbeacon"] {
            for text in try strings(kind) {
                guard let canonical = BeaconID.canonical(text), canonical.hasPrefix(kind + ":") else {
                    throw fail(kind, "expected \(BeaconID.form(kind)), got \"\(text)\"")
                }
                device.beacons.append(canonical)
            }
        }
        for text in try strings("address") {
            guard let address = BDAddress(text) else {
                throw fail("address", "expected an address AA:BB:CC:DD:EE:FF, got \"\(text)\"")
            }
            device.addresses.append(address)
        }
        for text in try strings("espresense") {
            let alias = text.lowercased()
            guard !alias.isEmpty, !alias.contains("/"), !alias.contains("+"), !alias.contains("#") else {
                throw fail("espresense", "expected an ESPresense device id (one MQTT topic level), got \"\(text)\"")
            }
            if alias.hasPrefix("irk:") {
                guard let irk = IdentityResolvingKey(hex: alias.dropFirst(4)) else {
                    throw fail("espresense", "an irk: id needs 32 hex digits, got \"\(text)\"")
                }
                if !device.irks.contains(irk) { device.irks.append(irk) }
            } else {
                device.espresense.append(alias)
            }
        }
        return device
    }
}
