/// Deterministic JSON text for every writer: quoted strings (the one escaper) and fixed-decimal numbers.
///
/// The `append...` functions write UTF-8 straight into a byte buffer, with no intermediate `String`: they are the
/// writers' hot path (a sighting, a fix, a batch). The `String`-returning forms wrap them.
public enum JSONText {
    /// `value` with exactly `decimals` digits after the point (0 ... 9), rounded half away from zero on the
    /// binary value (`(|v| x 10^d).rounded()`), never written as `-0.000`; `null` when not finite. Magnitudes whose
    /// scaled value reaches 2^53 fall back to Swift's shortest round-trip form, which is also valid JSON.
    public static func fixed(_ value: Double, decimals: Int) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        appendFixed(value, decimals: decimals, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `fixed(value, decimals:)` to UTF-8 bytes.
    @inlinable
    public static func appendFixed(_ value: Double, decimals: Int, to out: inout [UInt8]) {
        guard value.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        let d = min(max(decimals, 0), 9)
        // 10^d, exact in both types for d <= 9.
        var divisor: UInt64 = 1
        for _ in 0..<d { divisor &*= 10 }
        let scaled = (value.magnitude * Double(divisor)).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9_007_199_254_740_992 else {
            out.append(contentsOf: "\(value)".utf8)
            return
        }
        let units = UInt64(scaled)
        if value < 0 && units != 0 { out.append(UInt8(ascii: "-")) }
        appendDigits(units / divisor, to: &out)
        if d > 0 {
            out.append(UInt8(ascii: "."))
            appendDigits(units % divisor, width: d, to: &out)
        }
    }

    /// Appends the decimal digits of `value` (`-` first when negative).
    @inlinable
    public static func appendInteger(_ value: Int, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendDigits(UInt64(value.magnitude), to: &out)
    }

    /// Appends literal JSON text (keys with their separators, punctuation) as it is.
    @inlinable @inline(__always)
    public static func append(_ literal: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// `value` as a JSON number in Swift's shortest round-trip form (`2.0`, `-59.5`, `1e-05`); `null` if not finite.
    public static func shortest(_ value: Double) -> String {
        value.isFinite ? "\(value)" : "null"
    }

    /// Appends `shortest(value)`, or the integer's digits when `value` is a whole number under 10^9 in magnitude
    /// (`-59`, not `-59.0`): the compact form the MQTT batches use.
    @inlinable
    public static func appendCompact(_ value: Double, to out: inout [UInt8]) {
        if value == value.rounded(), value.magnitude < 1e9 {
            appendInteger(Int(value), to: &out)
        } else {
            out.append(contentsOf: shortest(value).utf8)
        }
    }

    /// `text` as a JSON string literal: quotes, backslashes and control characters escaped (RFC 8259 §7); other
    /// characters as they are.
    public static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 2)
        appendQuoted(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `text` as a JSON string literal to UTF-8 bytes: the one escaper. Bytes of multi-byte UTF-8
    /// sequences are copied as they are. Text with nothing to escape (the usual ids and names) is copied whole.
    @inlinable
    public static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        let plain = text.withUTF8 { bytes -> Bool in
            for byte in bytes where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return false
            }
            out.append(contentsOf: bytes)
            return true
        }
        if !plain { appendEscaped(text.utf8, to: &out) }
        out.append(UInt8(ascii: "\""))
    }

    @usableFromInline static func appendEscaped(_ utf8: String.UTF8View, to out: inout [UInt8]) {
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
    }

    /// Appends the decimal digits of `value`, left-padded with zeros to `width`.
    @inlinable
    static func appendDigits(_ value: UInt64, width: Int = 1, to out: inout [UInt8]) {
        // At most 20 digits; written backwards into a fixed buffer, then copied.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var v = value
            var i = 20
            repeat {
                i -= 1
                buffer[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
                v /= 10
            } while v != 0
            while 20 - i < width {
                i -= 1
                buffer[i] = UInt8(ascii: "0")
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[i..<20]))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
