/// The kind of device address an LE report or command carries; unknown values are kept as received.
///
/// Core Spec 5.4, Vol 4, Part E, §7.7.65.2 and §7.7.65.13 (Address_Type of LE advertising reports).
public struct BDAddressType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The byte as sent on the wire.
    public let rawValue: UInt8

    /// Creates a type from its wire value; every value is accepted.
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Public device address (0x00).
    public static let `public` = BDAddressType(rawValue: 0x00)
    /// Random device address (0x01).
    public static let random = BDAddressType(rawValue: 0x01)
    /// Public identity address, resolved by the controller from a resolvable private address (0x02).
    public static let publicIdentity = BDAddressType(rawValue: 0x02)
    /// Random (static) identity address, resolved by the controller (0x03).
    public static let randomIdentity = BDAddressType(rawValue: 0x03)
    /// No address provided: an anonymous advertisement (0xFF).
    public static let anonymous = BDAddressType(rawValue: 0xFF)

    /// True for the values the specification defines.
    public var isKnown: Bool { rawValue <= 0x03 || rawValue == 0xFF }

    /// `public`, `random`, `public identity`, `random identity`, `anonymous` or `0xNN` when unknown.
    public var description: String {
        switch rawValue {
        case 0x00: "public"
        case 0x01: "random"
        case 0x02: "public identity"
        case 0x03: "random identity"
        case 0xFF: "anonymous"
        default: "0x" + String(rawValue, radix: 16)
        }
    }
}
