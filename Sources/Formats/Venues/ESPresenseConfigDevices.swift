import BlueDotCore
import FoundationEssentials
import SystemIO

/// The devices an ESPresense-companion configuration tracks: its `devices` list (`id`, `name`), read for
/// `bluedot devices import --espresense` (the companion's `src/Models/Config.cs`; the rest of the file is the
/// venue's, `ESPresenseConfigImport`).
///
/// An `id` is what ESPresense nodes publish under `espresense/devices/<id>`: `irk:<32 hex>` (the key as
/// ESPresense's settings take it: most significant byte first, the Core Specification's order), an iBeacon as
/// `iBeacon:<uuid>-<major>-<minor>`, or an alias set on the nodes. Entries whose id holds a wildcard (`*`, `?`)
/// match many devices and are returned as patterns for the caller to note, not as devices.
public enum ESPresenseConfigDevices {
    /// One entry of `devices`.
    public struct Entry: Sendable, Hashable {
        /// The ESPresense id, as written.
        public var id: String
        /// The name, if any.
        public var name: String?
        /// The entry's line in the file.
        public var line: Int?
        /// The entry's path (`devices[3]`).
        public var path: String
        /// Whether the id is a pattern (holds `*` or `?`).
        public var isPattern: Bool { id.contains("*") || id.contains("?") }
    }

    /// Reads the configuration at `path`.
    public static func load(path: String) throws(ESPresenseConfigError) -> [Entry] {
        let file = URL(fileURLWithPath: path).lastPathComponent
        let data: [UInt8]
        do { data = try WholeFile.read(path) } catch {
            throw ESPresenseConfigError(file: file, line: nil, path: "", message: "\(error)")
        }
        return try parse(data, file: file)
    }

    /// The `devices` of a configuration's bytes; `file` names it in errors. An entry without `id` is an error.
    public static func parse(_ bytes: [UInt8], file: String) throws(ESPresenseConfigError) -> [Entry] {
        let root = YAMLField(node: try ESPresenseConfigImport.document(bytes, file: file), path: "", file: file)
        _ = try root.mapping()
        var entries: [Entry] = []
        for item in try root.optional("devices")?.elements() ?? [] {
            let id = try item.required("id").text().trimmingBlanks()
            guard !id.isEmpty else { throw try item.required("id").error("expected a device id") }
            entries.append(Entry(id: id, name: try item.optional("name")?.text(), line: item.node.line,
                                 path: item.path))
        }
        return entries
    }
}
