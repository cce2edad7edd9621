import HCI

/// One device of the registry: what people call it and every radio identity it shows (`docs/formats.md`,
/// "Devices").
public struct Device: Sendable, Hashable {
    /// The stable id targets take: lower-case letters, digits, `-` and `_`.
    public var id: String
    /// The name people read (maps, Home Assistant).
    public var name: String
    /// Its Identity Resolving Keys: every resolvable private address made from one of them is this device.
    public var irks: [IdentityResolvingKey]
    /// Its beacon ids in canonical form (`ibeacon:…`, `eddystone:…`, `altbeacon:…`).
    public var beacons: [String]
    /// Its public or static random addresses.
    public var addresses: [BDAddress]
    /// Its ESPresense device ids or aliases, lower-cased (an `irk:…` id needs no entry here: `irks` covers it).
    public var espresense: [String]

    /// Creates a device.
    public init(
        id: String, name: String, irks: [IdentityResolvingKey] = [], beacons: [String] = [],
        addresses: [BDAddress] = [], espresense: [String] = []
    ) {
        self.id = id
        self.name = name
        self.irks = irks
        self.beacons = beacons
        self.addresses = addresses
        self.espresense = espresense
    }

    /// Whether `text` is a registry id: non-empty, lower-case ASCII letters, digits, `-` and `_`.
    public static func isValidID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { c in
            (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
                || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
        }
    }
}
