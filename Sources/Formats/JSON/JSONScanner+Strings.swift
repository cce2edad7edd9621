import Positioning

extension JSONScanner {
    /// Reads a JSON string at the current position (the opening quote next), decoding escapes (RFC 8259 §7).
    mutating func string() throws(JSONSyntaxError) -> String {
        guard peek() == UInt8(ascii: "\"") else { throw error("expected a string") }
        index += 1
        let start = index
        // Fast path: no escapes, the bytes between the quotes are the string.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in string") }
            index += 1
        }
        guard index < bytes.count else { throw JSONSyntaxError(offset: start - 1, message: "unterminated string") }
        var utf8 = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                try escape(into: &utf8)
            case ..<0x20:
                throw error("control character in string")
            default:
                utf8.append(byte)
                index += 1
            }
        }
        throw JSONSyntaxError(offset: start - 1, message: "unterminated string")
    }

    /// Reads a string like `string()`, taking the text from `table` when it is plain ASCII without escapes (the
    /// line readers' anchor and target ids); other strings are decoded by `string()`.
    mutating func string(_ context: @autoclosure () -> String, interning table: inout StringTable)
        throws(JSONSyntaxError) -> String
    {
        guard peek() == UInt8(ascii: "\"") else { throw error("\(context()): expected a string") }
        var end = index + 1
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                let text = table.string(UnsafeBufferPointer(rebasing: bytes[(index + 1)..<end]))
                index = end + 1
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
            end += 1
        }
        return try string()
    }

    /// Decodes one escape after its backslash and appends its UTF-8 bytes.
    private mutating func escape(into utf8: inout [UInt8]) throws(JSONSyntaxError) {
        guard index < bytes.count else { throw error("unterminated string") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard literal("\\u") else { throw error("unpaired surrogate in \\u escape") }
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw error("unpaired surrogate in \\u escape")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
            utf8.append(contentsOf: String(Character(unicode)).utf8)
        default:
            throw JSONSyntaxError(offset: index - 2, message: "invalid escape in string")
        }
    }

    /// Reads four hexadecimal digits of a `\u` escape.
    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
