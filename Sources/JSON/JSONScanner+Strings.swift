
extension JSONScanner {
    /// Reads a JSON string at the current position (the opening quote next), decoding escapes (RFC 8259 §7).
    public mutating func string() throws(JSONSyntaxError) -> String {
        guard peek() == UInt8(ascii: "\"") else { throw error("expected a string") }
        index += 1
        let start = index
        // Fast path: no escapes, the bytes between the quotes are the string.
        index = plainEnd(from: start, stoppingAtNonASCII: false)
        guard index < bytes.count else { throw JSONSyntaxError(offset: start - 1, message: "unterminated string") }
        if bytes[index] == UInt8(ascii: "\"") {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            index += 1
            return text
        }
        if bytes[index] < 0x20 { throw error("control character in string") }
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
    public mutating func string(_ context: @autoclosure () -> String, interning table: inout StringTable)
        throws(JSONSyntaxError) -> String
    {
        guard peek() == UInt8(ascii: "\"") else { throw error("\(context()): expected a string") }
        let end = plainEnd(from: index + 1, stoppingAtNonASCII: true)
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            let text = table.string(UnsafeBufferPointer(rebasing: bytes[(index + 1)..<end]))
            index = end + 1
            return text
        }
        return try string()
    }

    /// The index of the first byte at or after `from` that is a quote, a backslash or a control character (or,
    /// when `stoppingAtNonASCII`, 0x80 or above); `bytes.count` when there is none. Eight bytes at a time: each
    /// test is "has a zero byte" on a transformed word (Hacker's Delight, 6-1), whose lowest flagged byte is always
    /// a true one (a borrow only flags bytes above a true zero), and the bytes are read little-endian, so the
    /// lowest flag is the first such byte.
    @inline(__always)
    func plainEnd(from: Int, stoppingAtNonASCII: Bool) -> Int {
        let n = bytes.count
        guard let base = bytes.baseAddress, from < n else { return max(from, n) }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var i = from
        while i &+ 8 <= n {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
            let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
            var flags = (word &- ones &* 0x20) & ~word & highs
            flags |= (quote &- ones) & ~quote & highs
            flags |= (backslash &- ones) & ~backslash & highs
            if stoppingAtNonASCII { flags |= word & highs }
            if flags != 0 { return i &+ flags.trailingZeroBitCount &>> 3 }
            i &+= 8
        }
        while i < n {
            let byte = base[i]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20
                || (stoppingAtNonASCII && byte >= 0x80) { return i }
            i &+= 1
        }
        return n
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
