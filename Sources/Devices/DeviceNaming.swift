import BlueDotCore

/// Registry ids made from the names importers find (`Alice's iPhone` → `alice-s-iphone`), unique within one
/// import (`-2`, `-3`, … for repeats).
public struct DeviceNaming {
    private var used: Set<String>

    /// A naming that avoids `taken` (the ids of a registry being added to).
    public init(taken: Set<String> = []) { used = taken }

    /// The id for `name` (lower-case letters and digits, runs of anything else as one `-`), else for `fallback`.
    public mutating func id(for name: String?, fallback: String) -> String {
        let slug = (name ?? "").asciiSlug(separator: "-")
        let base = slug.isEmpty ? fallback : slug
        var id = base
        var n = 2
        while used.contains(id) {
            id = "\(base)-\(n)"
            n += 1
        }
        used.insert(id)
        return id
    }
}
