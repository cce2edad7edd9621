import HCI

/// Resolvable private addresses: the random hash function `ah` and the address's two halves (Core Spec 5.4,
/// Vol 3, Part H, §2.2.2 and Vol 6, Part B, §1.3.2.2).
///
/// An RPA is `prand ‖ hash`, 24 bits each, most significant first: `prand`'s top two bits are `01` and
/// `hash = ah(IRK, prand)`. A device makes a new one every few minutes (Vol 3, Part C, §10.8.2.2); whoever holds
/// its IRK recognises every one of them.
public enum PrivateAddress {
    /// Whether a random address (`BDAddressType.random`) is resolvable: its two most significant bits are `01`.
    public static func isResolvable(_ address: BDAddress) -> Bool { address.rawValue >> 46 == 0b01 }

    /// `prand`, the address's upper 24 bits.
    static func prand(_ address: BDAddress) -> UInt32 { UInt32(truncatingIfNeeded: address.rawValue >> 24) }

    /// `hash`, the address's lower 24 bits.
    static func hash(_ address: BDAddress) -> UInt32 { UInt32(truncatingIfNeeded: address.rawValue & 0xFF_FFFF) }

    /// `ah(k, r) = e(k, r') mod 2^24`, `r'` being 104 zero bits then the 24 bits of `r`; nil if AES failed.
    static func ah(_ aes: AES128, _ r: UInt32) -> UInt32? {
        var block = [UInt8](repeating: 0, count: 16)
        block[13] = UInt8(truncatingIfNeeded: r >> 16)
        block[14] = UInt8(truncatingIfNeeded: r >> 8)
        block[15] = UInt8(truncatingIfNeeded: r)
        var out = [UInt8](repeating: 0, count: 16)
        let ok = block.withUnsafeBufferPointer { b in
            out.withUnsafeMutableBufferPointer { o in aes.encrypt(b.baseAddress!, into: o.baseAddress!) }
        }
        guard ok else { return nil }
        return UInt32(out[13]) << 16 | UInt32(out[14]) << 8 | UInt32(out[15])
    }

    /// `ah(irk, r)`, the 24-bit hash of `r` (its low 24 bits) under `irk`; nil if libcrypto failed.
    public static func ah(irk: IdentityResolvingKey, _ r: UInt32) -> UInt32? {
        guard let aes = AES128(key: irk.bytes) else { return nil }
        return ah(aes, r & 0xFF_FFFF)
    }

    /// The resolvable private address `prand ‖ ah(irk, prand)` for the random part `prand` (its low 22 bits are
    /// used; the top two are set to `01`): what a device holding `irk` would advertise.
    public static func make(irk: IdentityResolvingKey, random: UInt32) -> BDAddress? {
        let prand = random & 0x3F_FFFF | 0x40_0000
        guard let hash = ah(irk: irk, prand) else { return nil }
        return BDAddress(rawValue: UInt64(prand) << 24 | UInt64(hash))
    }

    /// Whether `address` was made from `irk`.
    public static func resolves(_ address: BDAddress, with irk: IdentityResolvingKey) -> Bool {
        isResolvable(address) && ah(irk: irk, prand(address)) == hash(address)
    }
}
