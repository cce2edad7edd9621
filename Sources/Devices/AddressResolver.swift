import HCI

/// Resolves private addresses to the IRK that made them (Core Spec 5.4, Vol 3, Part H, §2.2.2), with a cache of
/// the addresses it has resolved and a negative cache of those that resolve to no IRK.
///
/// A new address costs one pass of `ah` over the keys; an address resolved before costs a look-up; an address
/// that resolved to nothing is remembered for `strangerSeconds` (a phone keeps an RPA about 15 minutes), so that
/// a crowd of strangers costs a look-up per report, not an AES pass over every key. Both caches are bounded.
/// Time is the caller's (the report's timestamp): replays resolve the same way every time.
///
/// Not thread-safe (libcrypto contexts are one owner's): `DeviceIdentifier` keeps it behind its lock.
public struct AddressResolver {
    /// How long and how many addresses are remembered.
    public struct Settings: Sendable, Hashable {
        /// How long an address that resolved to no IRK is not tried again, seconds.
        public var strangerSeconds = 900.0
        /// Most resolved addresses remembered.
        public var resolvedCapacity = 4096
        /// Most unresolved addresses remembered.
        public var strangerCapacity = 16_384

        /// The defaults.
        public init() {}
    }

    /// What the resolver did, since it was made.
    public struct Statistics: Sendable, Hashable {
        /// Addresses answered from the cache of resolved ones.
        public var resolvedHits = 0
        /// Addresses answered from the negative cache.
        public var strangerHits = 0
        /// Addresses that took a pass over the keys.
        public var passes = 0
        /// Passes that found the key.
        public var resolved = 0
        /// Addresses held in the cache of resolved ones now.
        public var resolvedCached = 0
        /// Addresses held in the negative cache now.
        public var strangersCached = 0

        /// All zero.
        public init() {}
    }

    private let keys: [(aes: AES128, owner: Int)]
    private var resolved: BoundedAddressCache<Int>
    private var strangers: BoundedAddressCache<Double>
    private var block = [UInt8](repeating: 0, count: 16)
    private var output = [UInt8](repeating: 0, count: 16)
    /// The settings.
    public let settings: Settings
    /// The counters.
    public private(set) var statistics = Statistics()

    /// A resolver over `keys`, each with the index of the device it belongs to; nil if libcrypto refuses a key.
    public init?(keys: [(IdentityResolvingKey, owner: Int)], settings: Settings = Settings()) {
        var prepared: [(aes: AES128, owner: Int)] = []
        for (irk, owner) in keys {
            guard let aes = AES128(key: irk.bytes) else { return nil }
            prepared.append((aes, owner))
        }
        self.keys = prepared
        self.settings = settings
        resolved = BoundedAddressCache(capacity: settings.resolvedCapacity)
        strangers = BoundedAddressCache(capacity: settings.strangerCapacity)
    }

    /// Number of keys.
    public var keyCount: Int { keys.count }

    /// The owner of the key that made `address` (a resolvable private address) as heard at time `t`, or nil.
    public mutating func resolve(_ address: BDAddress, at t: Double) -> Int? {
        if let owner = resolved[address] {
            statistics.resolvedHits += 1
            return owner
        }
        if let until = strangers[address], t < until {
            statistics.strangerHits += 1
            return nil
        }
        statistics.passes += 1
        if let owner = pass(address) {
            statistics.resolved += 1
            resolved.insert(owner, for: address)
            statistics.resolvedCached = resolved.count
            return owner
        }
        strangers.insert(t + settings.strangerSeconds, for: address)
        statistics.strangersCached = strangers.count
        return nil
    }

    /// One `ah` per key until one gives the address's hash.
    private mutating func pass(_ address: BDAddress) -> Int? {
        guard PrivateAddress.isResolvable(address), !keys.isEmpty else { return nil }
        let prand = PrivateAddress.prand(address), hash = PrivateAddress.hash(address)
        block[13] = UInt8(truncatingIfNeeded: prand >> 16)
        block[14] = UInt8(truncatingIfNeeded: prand >> 8)
        block[15] = UInt8(truncatingIfNeeded: prand)
        let keys = keys
        return block.withUnsafeBufferPointer { b in
            output.withUnsafeMutableBufferPointer { o in
                for (aes, owner) in keys where aes.encrypt(b.baseAddress!, into: o.baseAddress!) {
                    if UInt32(o[13]) << 16 | UInt32(o[14]) << 8 | UInt32(o[15]) == hash { return owner }
                }
                return nil
            }
        }
    }
}
