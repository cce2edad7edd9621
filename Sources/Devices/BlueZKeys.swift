import BlueDotCore
import FoundationEssentials
import HCI
import SystemIO

/// The devices paired with this Linux machine, as BlueZ keeps them: `<dir>/<adapter>/<device>/info`, one
/// key file per device (BlueZ's `doc/settings-storage.txt`), read for `bluedot devices import --bluez DIR`.
///
/// From each `info`: `[General] Name=` and `AddressType=` (`public` or `static`), and `[IdentityResolvingKey]
/// Key=`, the device's IRK as 32 hex digits (BlueZ accepts a `0x` before them). BlueZ writes the key's bytes in
/// the order SMP carried them, least significant first (Core Spec 5.4, Vol 3, Part H, §3.6.4), the reverse of the
/// registry's: the importer reverses them. The device's folder is named after its identity address. A device
/// without an IRK (a keyboard, a tag that never uses private addresses) is imported by that address; a folder
/// whose name is no address, or without an `info`, is skipped with a note. `DIR` may be BlueZ's root
/// (`/var/lib/bluetooth`, all adapters) or one adapter's folder. Reading it takes root: BlueZ keeps it 0700.
public enum BlueZKeys {
    /// One paired device's `info`.
    public struct Entry: Sendable, Hashable {
        /// The identity address (the folder's name).
        public var address: BDAddress
        /// `[General] Name=`, if any.
        public var name: String?
        /// `[General] AddressType=`: `public`, `static`, or nil when not written (BR/EDR devices).
        public var addressType: String?
        /// `[IdentityResolvingKey] Key=`, converted to the registry's byte order.
        public var irk: IdentityResolvingKey?
    }

    /// Parses one `info` file's text; `file` names it in errors. Throws for a present but malformed IRK.
    public static func parseInfo(_ text: String, address: BDAddress, file: String) throws(DeviceRegistryError) -> Entry {
        var entry = Entry(address: address)
        var group = ""
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingBlanks()
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                group = line.hasSuffix("]") ? String(line.dropFirst().dropLast()) : ""
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingBlanks()
            let value = line[line.index(after: equals)...].trimmingBlanks()
            switch (group, key) {
            case ("General", "Name"): entry.name = value.isEmpty ? nil : value
            case ("General", "AddressType"): entry.addressType = value
            case ("IdentityResolvingKey", "Key"):
                guard let bytes = IdentityResolvingKey.hexBytes(value),
                      let irk = IdentityResolvingKey(littleEndianBytes: bytes) else {
                    throw DeviceRegistryError(file: file, line: n + 1, field: "[IdentityResolvingKey] Key",
                                              message: "expected 32 hex digits, got \"\(value)\"")
                }
                entry.irk = irk
            default: break
            }
        }
        return entry
    }

    /// Reads every device's `info` under `directory`, in address order, with a note for each folder skipped.
    public static func read(directory: String) throws(DeviceRegistryError) -> (entries: [Entry], notes: [String]) {
        let fm = FileManager.default
        // A folder is what can be listed.
        func folders(_ path: String) -> [String] {
            ((try? fm.contentsOfDirectory(atPath: path)) ?? []).sorted().filter { name in
                (try? fm.contentsOfDirectory(atPath: path + "/" + name)) != nil
            }
        }
        guard fm.fileExists(atPath: directory) else {
            throw DeviceRegistryError(file: directory, field: "", message: "no such folder (BlueZ keeps /var/lib/bluetooth)")
        }
        guard (try? fm.contentsOfDirectory(atPath: directory)) != nil else {
            throw DeviceRegistryError(file: directory, field: "",
                                      message: "cannot list the folder (not a folder, or BlueZ's, which is root's only)")
        }
        // One adapter's folder holds devices' folders with an info file; the root holds adapters' folders.
        let top = folders(directory).filter { BDAddress($0) != nil }
        let isAdapter = top.contains { fm.fileExists(atPath: "\(directory)/\($0)/info") }
        let deviceFolders = isAdapter ? top.map { "\(directory)/\($0)" }
            : top.flatMap { adapter in folders("\(directory)/\(adapter)").map { "\(directory)/\(adapter)/\($0)" } }
        var entries: [Entry] = []
        var notes: [String] = []
        for folder in deviceFolders {
            let name = String(folder.split(separator: "/").last ?? "")
            guard let address = BDAddress(name) else {
                if name != "cache" { notes.append("\(folder): not a device's folder (its name is no address), skipped") }
                continue
            }
            guard let data = WholeFile.contents(folder + "/info") else {
                notes.append("\(folder): no readable info file, skipped")
                continue
            }
            let file = folder + "/info"
            let entry = try parseInfo(String(decoding: data, as: UTF8.self), address: address, file: file)
            if entry.irk == nil {
                notes.append("\(file): no IdentityResolvingKey; imported by its address \(address)")
            }
            entries.append(entry)
        }
        return (entries, notes)
    }

    /// The registry devices of `entries`: ids made from the names (unique, `DeviceNaming`), the IRK when there is
    /// one, else the identity address.
    public static func devices(_ entries: [Entry]) -> [Device] {
        var naming = DeviceNaming()
        return entries.map { e in
            let id = naming.id(for: e.name, fallback: "bluez-" + e.address.description.lowercased()
                .filter { $0 != ":" })
            var d = Device(id: id, name: e.name ?? e.address.description)
            if let irk = e.irk { d.irks = [irk] } else { d.addresses = [e.address] }
            return d
        }
    }
}
