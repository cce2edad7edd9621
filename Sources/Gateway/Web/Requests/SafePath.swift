/// Request paths checked for the static file server: percent-decoded, split into segments, and refused when any
/// segment could leave the served folder (`..`, `.`, empty, hidden, backslash, NUL, control characters).
package enum SafePath {
    /// The decoded segments of `rawPath` below `prefix`, or nil when the path is not safe to serve.
    package static func segments(_ rawPath: String, below prefix: String) -> [String]? {
        guard rawPath.utf8.starts(with: prefix.utf8) else { return nil }
        let rest = Substring(rawPath.utf8.dropFirst(prefix.utf8.count))
        guard let decoded = percentDecoded(rest), !decoded.isEmpty else { return nil }
        // Split and checked as bytes and scalars, not as characters: a character may hold a `/` or start with a
        // `.` without being one (`\u{6DD}/` is one character, the prepended mark with the slash, and `.\u{301}`
        // another), which the fuzzer found.
        let parts = decoded.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        for part in parts {
            guard let first = part.utf8.first, first != UInt8(ascii: "."), part.unicodeScalars.count <= 128 else {
                return nil
            }
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
