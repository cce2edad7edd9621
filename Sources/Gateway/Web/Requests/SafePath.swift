/// Request paths checked for the static file server: percent-decoded, split into segments, and refused when any
/// segment could leave the served folder (`..`, `.`, empty, hidden, backslash, NUL, control characters).
package enum SafePath {
    /// The decoded segments of `rawPath` below `prefix`, or nil when the path is not safe to serve.
    package static func segments(_ rawPath: String, below prefix: String) -> [String]? {
        guard rawPath.hasPrefix(prefix) else { return nil }
        let rest = rawPath.dropFirst(prefix.count)
        guard let decoded = percentDecoded(rest), !decoded.isEmpty else { return nil }
        let parts = decoded.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for part in parts {
            guard !part.isEmpty, !part.hasPrefix("."), part.count <= 128 else { return nil }
            guard part.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0 != "\\" && $0.value != 0x7F }) else {
                return nil
            }
        }
        return parts
    }

    /// Decodes `%XX` escapes (RFC 3986 §2.1); nil on a bad escape or bytes that are not UTF-8.
    package static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
