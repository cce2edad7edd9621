/// Deterministic JSON text for every writer: quoted strings (the one escaper) and fixed-decimal numbers.
public enum JSONText {
    /// Exact powers of ten for the decimals the writers use (10^0 ... 10^9).
    private static let scales: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]

    /// `value` with exactly `decimals` digits after the point (0 ... 9), rounded half away from zero on the
    /// binary value (`(|v| x 10^d).rounded()`), never written as `-0.000`; `null` when not finite. Magnitudes whose
    /// scaled value reaches 2^53 fall back to Swift's shortest round-trip form, which is also valid JSON.
    public static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "null" }
        let d = min(max(decimals, 0), scales.count - 1)
        let scaled = (value.magnitude * scales[d]).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9_007_199_254_740_992 else { return "\(value)" }
        let units = UInt64(scaled)
        let divisor = UInt64(scales[d])
        var text = value < 0 && units != 0 ? "-" : ""
        text += String(units / divisor)
        if d > 0 {
            let fraction = String(units % divisor)
            text += "." + String(repeating: "0", count: d - fraction.count) + fraction
        }
        return text
    }

    /// `value` as a JSON number in Swift's shortest round-trip form (`2.0`, `-59.5`, `1e-05`); `null` if not finite.
    public static func shortest(_ value: Double) -> String {
        value.isFinite ? "\(value)" : "null"
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
    /// sequences are copied as they are.
    public static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
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
        out.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
