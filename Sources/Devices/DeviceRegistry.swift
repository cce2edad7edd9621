import HCI

/// The devices a site tracks, with the look-ups from every identity to its device (`docs/formats.md`, "Devices").
///
/// A value: read once at start (`DeviceRegistryFile`), shared by every role. `DeviceIdentifier` uses it to turn
/// what a radio or a site reports into a target id; `names` is the one place a target's display name comes from.
public struct DeviceRegistry: Sendable, Hashable {
    /// The devices, in file order.
    public let devices: [Device]
    private let byID: [String: Int]
    private let byBeacon: [String: Int]
    private let byAddress: [BDAddress: Int]
    private let byESPresense: [String: Int]
    private let byIRK: [IdentityResolvingKey: Int]

    /// No devices: only beacons become targets.
    public static let empty = DeviceRegistry(checked: [])

    /// A registry of `devices`; throws the first id or identity given twice (paths `devices[i]…`).
    public init(devices: [Device], file: String = "devices") throws(DeviceRegistryError) {
        var seen = Seen(file: file)
        for (i, d) in devices.enumerated() { try seen.add(d, index: i) }
        self.init(checked: devices)
    }

    private init(checked devices: [Device]) {
        self.devices = devices
        var byID: [String: Int] = [:], byBeacon: [String: Int] = [:], byAddress: [BDAddress: Int] = [:]
        var byESPresense: [String: Int] = [:], byIRK: [IdentityResolvingKey: Int] = [:]
        for (i, d) in devices.enumerated() {
            byID[d.id] = i
            for b in d.beacons { byBeacon[b] = i }
            for a in d.addresses { byAddress[a] = i }
            for e in d.espresense { byESPresense[e] = i }
            for k in d.irks { byIRK[k] = i }
        }
        self.byID = byID
        self.byBeacon = byBeacon
        self.byAddress = byAddress
        self.byESPresense = byESPresense
        self.byIRK = byIRK
    }

    /// Whether there are no devices.
    public var isEmpty: Bool { devices.isEmpty }

    /// The device with this id.
    public func device(id: String) -> Device? { byID[id].map { devices[$0] } }

    /// The display name of each device, by target id: the seam Home Assistant, the map and the API take names from.
    public var names: [String: String] {
        Dictionary(devices.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
    }

    /// The display name of a target id, if it is a device's.
    public func name(of target: String) -> String? { byID[target].map { devices[$0].name } }

    /// The index of the device with this beacon id (canonical form).
    func index(beacon id: String) -> Int? { byBeacon[id] }

    /// The index of the device with this public or static address.
    func index(address: BDAddress) -> Int? { byAddress[address] }

    /// The index of the device with this ESPresense id or alias (lower-cased).
    func index(espresense id: String) -> Int? { byESPresense[id] }

    /// The index of the device with this IRK.
    func index(irk: IdentityResolvingKey) -> Int? { byIRK[irk] }

    /// The index of the device with this id.
    func index(id: String) -> Int? { byID[id] }

    /// Ids and identities seen so far while checking a registry, with where each was first.
    struct Seen {
        let file: String
        var ids: [String: Int] = [:]
        var identities: [String: String] = [:]

        init(file: String) { self.file = file }

        mutating func add(_ d: Device, index i: Int) throws(DeviceRegistryError) {
            if let first = ids[d.id] {
                throw DeviceRegistryError(file: file, field: "devices[\(i)].id",
                                          message: "duplicate id \"\(d.id)\" (first at devices[\(first)])")
            }
            ids[d.id] = i
            let keyed = d.irks.map { ("irk", "irk:" + $0.hex, $0.description) } + d.beacons.map { (String($0.prefix { $0 != ":" }), $0, $0) }
                + d.addresses.map { ("address", "address:\($0)", "\($0)") } + d.espresense.map { ("espresense", "espresense:" + $0, $0) }
            for (field, key, shown) in keyed {
                if let owner = identities[key], owner != d.id {
                    throw DeviceRegistryError(file: file, field: "devices[\(i)].\(field)",
                                              message: "\(shown) already belongs to \"\(owner)\"")
                }
                identities[key] = d.id
            }
        }
    }
}
