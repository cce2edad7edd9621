/// Hex and decimal digits written straight into UTF-8 bytes: the one place that spells out addresses, UUIDs and
/// beacon ids, so a sighting's JSON line and its `String` forms are built the same way and without temporaries.
public enum HexText {
    @usableFromInline static let lower: [UInt8] = Array("0123456789abcdef".utf8)
    @usableFromInline static let upper: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Appends two hex digits of `byte`.
    @inlinable @inline(__always)
    public static func append(byte: UInt8, uppercase: Bool = false, to out: inout [UInt8]) {
        let digits = uppercase ? upper : lower
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0F)])
    }

    /// Appends two lower-case hex digits per byte.
    public static func append(bytes: some Sequence<UInt8>, to out: inout [UInt8]) {
        for byte in bytes { append(byte: byte, to: &out) }
    }

    /// Appends the low `digits` hex digits of `value`, most significant first, lower case.
    @inlinable
    public static func append(_ value: UInt64, digits: Int, to out: inout [UInt8]) {
        for k in stride(from: digits - 1, through: 0, by: -1) {
            out.append(lower[Int(truncatingIfNeeded: (value >> (4 * UInt64(k))) & 0xF)])
        }
    }

    /// Appends the decimal digits of `value`.
    public static func appendDecimal(_ value: UInt64, to out: inout [UInt8]) {
        var divisor: UInt64 = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Lower-case hex, two digits per byte, as a `String`.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        text { append(bytes: bytes, to: &$0) }
    }

    /// The `String` of what `write` appends.
    public static func text(capacity: Int = 64, _ write: (inout [UInt8]) -> Void) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        write(&out)
        return String(decoding: out, as: UTF8.self)
    }
}
