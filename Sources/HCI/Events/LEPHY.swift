/// An LE physical layer as advertising reports name it; unknown values are kept as received.
///
/// Core Spec 5.4, Vol 4, Part E, §7.7.65.13 (Primary_PHY and Secondary_PHY of LE Extended Advertising Report).
public struct LEPHY: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The byte as sent on the wire.
    public let rawValue: UInt8

    /// Creates a PHY from its wire value.
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// LE 1M (0x01): every legacy advertisement is on it.
    public static let le1M = LEPHY(rawValue: 0x01)
    /// LE 2M (0x02): secondary channel only.
    public static let le2M = LEPHY(rawValue: 0x02)
    /// LE Coded (0x03): long range.
    public static let leCoded = LEPHY(rawValue: 0x03)

    /// `1M`, `2M`, `Coded` or `0xNN`.
    public var description: String {
        switch rawValue {
        case 0x01: "1M"
        case 0x02: "2M"
        case 0x03: "Coded"
        default: "0x" + Opcode.hex(UInt64(rawValue), width: 2)
        }
    }
}
