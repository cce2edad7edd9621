import HCI

/// A map from addresses to values holding at most `capacity` entries; when full, the oldest entry goes first.
///
/// The resolver's memory bound: a crowd of strangers' phones cannot grow it past `capacity` entries (about 40 bytes
/// each: the table's slot and the ring's key).
struct BoundedAddressCache<Value> {
    private var entries: [BDAddress: Value] = [:]
    private var ring: [BDAddress] = []
    private var oldest = 0
    /// The most entries held.
    let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0, "a cache holds at least one entry")
        self.capacity = capacity
    }

    /// The value of `address`, if held.
    subscript(address: BDAddress) -> Value? { entries[address] }

    /// Entries held.
    var count: Int { entries.count }

    /// Holds `value` for `address`; a new address pushes out the oldest when the cache is full.
    mutating func insert(_ value: Value, for address: BDAddress) {
        if entries.updateValue(value, forKey: address) != nil { return }
        if ring.count < capacity {
            ring.append(address)
        } else {
            entries.removeValue(forKey: ring[oldest])
            ring[oldest] = address
            oldest = (oldest + 1) % capacity
        }
    }
}
