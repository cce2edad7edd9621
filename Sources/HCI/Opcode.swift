/// An HCI command opcode: a 6-bit Opcode Group Field (OGF) and a 10-bit Opcode Command Field (OCF).
///
/// Core Spec 5.4, Vol 4, Part E, §5.4.1 (HCI Command packet). Sent little-endian as `OCF | OGF << 10`.
public struct Opcode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The 16-bit value as sent on the wire.
    public let rawValue: UInt16

    /// Creates an opcode from its 16-bit value.
    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Creates an opcode from its group and command fields (OGF is masked to 6 bits, OCF to 10).
    @inlinable public init(ogf: UInt8, ocf: UInt16) {
        rawValue = UInt16(ogf & 0x3F) << 10 | (ocf & 0x03FF)
    }

    /// The Opcode Group Field (6 bits).
    @inlinable public var ogf: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 10) }

    /// The Opcode Command Field (10 bits).
    @inlinable public var ocf: UInt16 { rawValue & 0x03FF }

    /// Opcode 0x0000: no operation, used by Command Complete/Status events that only return credits.
    public static let noOperation = Opcode(rawValue: 0x0000)

    /// OGF 0x01: Link Control commands.
    public static let linkControlGroup: UInt8 = 0x01
    /// OGF 0x03: Controller & Baseband commands.
    public static let controllerBasebandGroup: UInt8 = 0x03
    /// OGF 0x04: Informational parameters.
    public static let informationalGroup: UInt8 = 0x04
    /// OGF 0x08: LE Controller commands.
    public static let leControllerGroup: UInt8 = 0x08
    /// OGF 0x3F: vendor-specific commands.
    public static let vendorGroup: UInt8 = 0x3F

    /// Reads an opcode (two bytes, little-endian).
    @inlinable public static func decode(from reader: inout ByteReader, _ field: String) throws(HCIDecodingError) -> Opcode {
        Opcode(rawValue: try reader.u16(field))
    }

    /// `0x0C03 (OGF 0x03, OCF 0x003)`.
    public var description: String {
        "0x\(Self.hex(UInt64(rawValue), width: 4)) (OGF 0x\(Self.hex(UInt64(ogf), width: 2)), OCF 0x\(Self.hex(UInt64(ocf), width: 3)))"
    }

    static func hex(_ value: UInt64, width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
