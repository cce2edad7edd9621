import BlueDotCore
import JSON

/// A Bluetooth device address (BD_ADDR): 48 bits, sent least significant byte first.
///
/// Core Spec 5.4, Vol 2, Part B, §1.2 (Bluetooth device addressing) and Vol 4, Part E, §5.2 (parameters are
/// little-endian). Printed the usual way, most significant byte first: `AA:BB:CC:DD:EE:FF`.
public struct BDAddress: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The address as a 48-bit integer (the top 16 bits are always zero).
    public let rawValue: UInt64

    /// The all-zero address, which controllers send where an address field does not apply.
    public static let zero = BDAddress(rawValue: 0)

    /// The number of bytes an address takes on the wire.
    public static let byteCount = 6

    /// Creates an address from a 48-bit integer; bits above 47 are dropped.
    @inlinable public init(rawValue: UInt64) {
        self.rawValue = rawValue & 0xFFFF_FFFF_FFFF
    }

    /// Creates an address from its six bytes in wire order (least significant first); nil unless there are six.
    public init?<Bytes: Collection>(littleEndianBytes bytes: Bytes) where Bytes.Element == UInt8 {
        guard bytes.count == Self.byteCount else { return nil }
        var value: UInt64 = 0
        for (k, byte) in bytes.enumerated() { value |= UInt64(byte) << (8 * k) }
        self.init(rawValue: value)
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (or with `-` separators), most significant byte first, in either case.
    public init?(_ text: String) {
        let parts = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == ":" || $0 == "-" })
        guard parts.count == Self.byteCount else { return nil }
        var value: UInt64 = 0
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            value = value << 8 | UInt64(byte)
        }
        self.init(rawValue: value)
    }

    /// The six bytes in wire order (least significant first).
    public var littleEndianBytes: [UInt8] {
        (0..<Self.byteCount).map { UInt8(truncatingIfNeeded: rawValue >> (8 * $0)) }
    }

    /// Reads an address (six bytes, least significant first).
    @inlinable public static func decode(from reader: inout ByteReader, _ field: String) throws(HCIDecodingError) -> BDAddress {
        let bytes = try reader.bytes(byteCount, field)
        var value: UInt64 = 0
        var shift: UInt64 = 0
        for byte in bytes {
            value |= UInt64(byte) << shift
            shift += 8
        }
        return BDAddress(rawValue: value)
    }

    /// Writes the address in wire order.
    public func encode(into writer: inout ByteWriter) {
        writer.append(littleEndianBytes)
    }

    /// `AA:BB:CC:DD:EE:FF`, most significant byte first, upper-case hex.
    public var description: String { JSONText.text(estimatedBytes: 17) { writeDescription(to: &$0) } }

    /// Writes `AA:BB:CC:DD:EE:FF` (or `aa:bb:...` with `uppercase: false`).
    public func writeDescription(uppercase: Bool = true, to w: inout JSONWriter) {
        for k in (0..<Self.byteCount).reversed() {
            let byte = UInt8(truncatingIfNeeded: rawValue >> (8 * UInt64(k)))
            if uppercase { w.upperHex(byte) } else { w.hex(byte) }
            if k > 0 { w.byte(UInt8(ascii: ":")) }
        }
    }

    /// Orders addresses by their integer value.
    public static func < (lhs: BDAddress, rhs: BDAddress) -> Bool { lhs.rawValue < rhs.rawValue }
}
