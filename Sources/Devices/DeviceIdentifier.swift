import BlueDotCore
import HCI
import Logging

/// Decides what an advertiser heard is: a registry device (by any of its identities, resolving private addresses
/// with its IRKs), a known beacon, or a stranger; and counts the strangers, which is all that is kept of them.
///
/// Known beacons are advertisers sending an iBeacon, Eddystone-UID or AltBeacon frame: they announce a fixed id on
/// purpose (venue anchors and asset tags do), unlike a person's phone. Everything else that no device claims is a
/// stranger: its address is not returned, so it cannot become a target, an observation, a published sighting, a
/// history row or a map label. With `listUnknown` (a setting for setting up, off by default) each stranger is
/// logged once, so that its owner can find the device to add.
///
/// Thread-safe: one lock around the resolver and the counters; receivers call it for every report.
public final class DeviceIdentifier: Sendable {
    /// What an advertiser or a reported id is.
    public enum Identity: Sendable, Hashable {
        /// A registry device: its id.
        case device(String)
        /// A known beacon, no device's: its canonical id.
        case beacon(String)
        /// Nobody we know.
        case stranger
    }

    /// What was decided, since start.
    public struct Statistics: Sendable, Hashable {
        /// Reports of registry devices.
        public var devices = 0
        /// Reports of known beacons that are no device's.
        public var beacons = 0
        /// Reports of strangers (counted, nothing else kept).
        public var strangers = 0
        /// Strangers among them whose address was a resolvable private one.
        public var privateStrangers = 0
        /// The resolver's caches and passes.
        public var resolver = AddressResolver.Statistics()

        /// All zero.
        public init() {}
    }

    private struct State {
        var registry: DeviceRegistry
        var anchorAddresses: Set<BDAddress>
        var resolver: AddressResolver
        var settings: AddressResolver.Settings
        var statistics = Statistics()
        var listed = Set<BDAddress>()
    }

    /// The registry; `replace(registry:anchorIDs:)` replaces it.
    public var registry: DeviceRegistry { state.withLock { $0.registry } }
    /// Advertisers a venue names by address (`mac:` anchors): known as themselves, like beacons.
    public var anchorAddresses: Set<BDAddress> { state.withLock { $0.anchorAddresses } }
    private let listUnknown: Logger?
    private let state: LockedValue<State>
    /// How many strangers `listUnknown` logs at most (each once).
    public static let listLimit = 1000

    /// An identifier over `registry`, knowing also the venue's anchors named by address (`anchorIDs`: the ids
    /// of the form `mac:aa:bb:…` count, others are beacons' or receivers'); with `listUnknown`, each stranger's
    /// address is logged there once (up to `listLimit`). Nil only if libcrypto refuses a key.
    public init?(registry: DeviceRegistry, anchorIDs: some Sequence<String> = [String](),
                 resolver settings: AddressResolver.Settings = AddressResolver.Settings(), listUnknown: Logger? = nil)
    {
        guard let resolver = Self.resolver(registry, settings: settings) else { return nil }
        self.listUnknown = listUnknown
        state = LockedValue(State(
            registry: registry, anchorAddresses: Self.addresses(anchorIDs), resolver: resolver, settings: settings))
    }

    /// Identifies by `registry` and the venue anchors `anchorIDs` from the next report on (a registry or venue
    /// saved while running); false, and nothing changed, when libcrypto refuses a key. The counters go on.
    @discardableResult
    public func replace(registry: DeviceRegistry, anchorIDs: some Sequence<String>) -> Bool {
        let settings = state.withLock { $0.settings }
        guard let resolver = Self.resolver(registry, settings: settings) else { return false }
        let addresses = Self.addresses(anchorIDs)
        state.withLock { s in
            s.registry = registry
            s.anchorAddresses = addresses
            s.resolver = resolver
        }
        return true
    }

    /// Identifies the venue anchors `anchorIDs` by address from the next report on, the registry kept.
    public func replace(anchorIDs: some Sequence<String>) {
        let addresses = Self.addresses(anchorIDs)
        state.withLock { $0.anchorAddresses = addresses }
    }

    private static func addresses(_ anchorIDs: some Sequence<String>) -> Set<BDAddress> {
        Set(anchorIDs.compactMap { $0.hasPrefix("mac:") ? BDAddress(String($0.dropFirst(4))) : nil })
    }

    private static func resolver(_ registry: DeviceRegistry, settings: AddressResolver.Settings) -> AddressResolver? {
        var keys: [(IdentityResolvingKey, owner: Int)] = []
        for (i, d) in registry.devices.enumerated() { keys += d.irks.map { ($0, owner: i) } }
        return AddressResolver(keys: keys, settings: settings)
    }

    /// An identifier without devices: beacons only.
    public static func beaconsOnly() -> DeviceIdentifier {
        // An empty registry has no key for libcrypto to refuse.
        DeviceIdentifier(registry: .empty)!
    }

    /// The counters.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// What the advertiser at `address` is, heard at time `t` (the report's timestamp); `beaconID` is the canonical
    /// id of its beacon frame when it sends one with an id.
    ///
    /// In order: a beacon id a device claims; an address a device claims; a resolvable private address one of the
    /// devices' IRKs made; the beacon itself; a venue anchor named by its address; else a stranger.
    public func identify(address: BDAddress, type: BDAddressType, beaconID: String?, at t: Double) -> Identity {
        let (identity, newStranger) = state.withLock { s -> (Identity, Bool) in
            let registry = s.registry
            var index = beaconID.flatMap { registry.index(beacon: $0) } ?? registry.index(address: address)
            let isPrivate = type == .random && PrivateAddress.isResolvable(address)
            if index == nil, isPrivate, s.resolver.keyCount > 0 {
                index = s.resolver.resolve(address, at: t)
                s.statistics.resolver = s.resolver.statistics
            }
            if let index {
                s.statistics.devices += 1
                return (.device(registry.devices[index].id), false)
            }
            if let beaconID {
                s.statistics.beacons += 1
                return (.beacon(beaconID), false)
            }
            if s.anchorAddresses.contains(address) {
                s.statistics.beacons += 1
                return (.beacon(Self.macID(address)), false)
            }
            s.statistics.strangers += 1
            if isPrivate { s.statistics.privateStrangers += 1 }
            guard listUnknown != nil, s.listed.count < Self.listLimit else { return (.stranger, false) }
            return (.stranger, s.listed.insert(address).inserted)
        }
        if newStranger, let listUnknown {
            let kind = type == .random ? (PrivateAddress.isResolvable(address) ? "resolvable private" : "random")
                : type.description
            listUnknown.notice("unknown device heard (devices-list-unknown is on)", metadata: [
                "address": "\(address)", "type": "\(kind)",
            ])
        }
        return identity
    }

    /// `mac:aa:bb:cc:dd:ee:ff`, the canonical id of an advertiser known by its address.
    static func macID(_ address: BDAddress) -> String { "mac:" + address.description.lowercased() }

    /// What an id reported by another program is: a site receiver's target or an ESPresense device id (`irk:<32
    /// hex>`, a canonical beacon id, `mac:aa:bb:…`, an alias). A device's own id is that device.
    public func identify(reportedID id: String) -> Identity {
        let registry = registry
        let lower = id.lowercased()
        var index = registry.index(id: id)
        var beacon: String?
        if index == nil {
            if lower.hasPrefix("irk:") {
                index = IdentityResolvingKey(hex: lower.dropFirst(4)).flatMap { registry.index(irk: $0) }
            } else if lower.hasPrefix("mac:") {
                index = BDAddress(String(lower.dropFirst(4))).flatMap { registry.index(address: $0) }
            } else if let canonical = BeaconID.canonical(lower) {
                index = registry.index(beacon: canonical)
                beacon = canonical
            }
            if index == nil { index = registry.index(espresense: lower) }
        }
        return state.withLock { s in
            if let index {
                s.statistics.devices += 1
                return .device(registry.devices[index].id)
            }
            if let beacon {
                s.statistics.beacons += 1
                return .beacon(beacon)
            }
            s.statistics.strangers += 1
            return .stranger
        }
    }
}

extension DeviceIdentifier {
    /// The target of an observation made elsewhere (a site receiver's batch, an observation file): a device's
    /// beacon id or address becomes the device's id; an address no device claims (`mac:…`) is a stranger's (nil);
    /// other ids (device ids, beacon ids, names) as they are.
    public func target(ofObservation id: String) -> String? {
        let isAddress = id.hasPrefix("mac:")
        guard isAddress || id.hasPrefix("ibeacon:") || id.hasPrefix("eddystone:") || id.hasPrefix("altbeacon:") else {
            return id
        }
        switch identify(reportedID: id) {
        case .device(let device): return device
        case .beacon: return id
        case .stranger: return isAddress ? nil : id
        }
    }
}

extension DeviceIdentifier.Identity {
    /// The target id: the device's or the beacon's; nil for a stranger.
    public var targetID: String? {
        switch self {
        case .device(let id), .beacon(let id): id
        case .stranger: nil
        }
    }
}
