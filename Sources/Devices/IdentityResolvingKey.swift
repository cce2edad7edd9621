/// An Identity Resolving Key: the 128-bit key a device hands over when it bonds, from which it makes its
/// resolvable private addresses (Core Spec 5.4, Vol 3, Part H, §2.4.2.1 and §3.6.4).
///
/// Held most significant byte first, the order the Core Specification's sample data writes keys in (Vol 3, Part H,
/// Appendix D) and the order AES takes its key bytes in (FIPS-197). SMP sends the key least significant byte
/// first (Vol 3, Part H, §3.1), and BlueZ and Apple's keychain keep it that way: those importers reverse it.
public struct IdentityResolvingKey: Sendable, Hashable, CustomStringConvertible {
    /// The sixteen bytes, most significant first.
    public let bytes: [UInt8]

    /// The key from its bytes, most significant first; nil unless there are sixteen.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// The key from its bytes in SMP's wire order, least significant first (BlueZ's `info` files, Bumble, the
    /// `Remote IRK` of Apple's keychain); nil unless there are sixteen.
    public init?(littleEndianBytes: [UInt8]) {
        self.init(bytes: littleEndianBytes.reversed())
    }

    /// Parses 32 hex digits, most significant byte first, in either case (a leading `0x` is allowed); nil for
    /// anything else.
    public init?(hex text: some StringProtocol) {
        guard let bytes = Self.hexBytes(text) else { return nil }
        self.init(bytes: bytes)
    }

    /// The sixteen bytes of 32 hex digits in the order written (a leading `0x` is allowed), or nil.
    static func hexBytes(_ text: some StringProtocol) -> [UInt8]? {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        let utf8 = Array(digits.utf8)
        guard utf8.count == 32 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for i in stride(from: 0, to: 32, by: 2) {
            guard let high = hexValue(utf8[i]), let low = hexValue(utf8[i + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// 32 lower-case hex digits, most significant byte first (the registry's form).
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Never the key itself: logs and errors must not leak it. `irk(…9b)`, its last byte only.
    public var description: String { "irk(…\(hex.suffix(2)))" }
}
