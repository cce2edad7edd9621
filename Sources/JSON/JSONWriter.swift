/// Writes JSON text into raw scratch memory with plain stores: the hot path behind every writer that appends a
/// line or a payload to a byte buffer (`JSONText.append(to:_:)` hands it out). Each write checks the room left;
/// when the scratch is too small the writer only notes it, and `JSONText.append` runs the writing again with twice
/// the room, so no caller sees the limit.
public struct JSONWriter: ~Copyable {
    @usableFromInline let base: UnsafeMutablePointer<UInt8>
    @usableFromInline let capacity: Int
    @usableFromInline var count = 0
    @usableFromInline var overflowed = false

    @inlinable init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// Whether `n` more bytes fit; notes the overflow when they do not.
    @inlinable @inline(__always)
    mutating func room(_ n: Int) -> Bool {
        guard count &+ n <= capacity else {
            overflowed = true
            return false
        }
        return true
    }

    /// One byte.
    @inlinable @inline(__always)
    public mutating func byte(_ b: UInt8) {
        guard room(1) else { return }
        base[count] = b
        count &+= 1
    }

    /// Literal text (keys with their separators, punctuation) as it is.
    @inlinable @inline(__always)
    public mutating func literal(_ text: StaticString) {
        let n = text.utf8CodeUnitCount
        guard room(n) else { return }
        (base + count).update(from: text.utf8Start, count: n)
        count &+= n
    }

    /// Bytes as they are.
    @inlinable
    public mutating func bytes(_ source: UnsafeBufferPointer<UInt8>) {
        guard room(source.count), let start = source.baseAddress else { return }
        (base + count).update(from: start, count: source.count)
        count &+= source.count
    }

    /// The decimal digits of `value`, left-padded with zeros to `width`.
    @inlinable
    public mutating func digits(_ value: UInt64, width: Int = 1) {
        let n = max(Self.decimalDigitCount(value), width)
        guard room(n) else { return }
        var p = Self.writeDigits(value, before: base + count + n)
        while p > base + count {
            p -= 1
            p[0] = UInt8(ascii: "0")
        }
        count &+= n
    }

    /// Writes the decimal digits of `value` (at least one) to end just before `end`, two at a time from the end
    /// out of the table of the pairs "00" ... "99"; returns where they start.
    @inlinable @inline(__always)
    static func writeDigits(_ value: UInt64, before end: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        let pairs = digitPairs.utf8Start
        var p = end
        var v = value
        while v >= 100 { writeLastPair(of: &v, before: &p) }
        if v >= 10 {
            let pair = Int(truncatingIfNeeded: v) &* 2
            p -= 2
            p[0] = pairs[pair]
            p[1] = pairs[pair &+ 1]
        } else {
            p -= 1
            p[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v)
        }
        return p
    }

    /// Writes the last two decimal digits of `v` just before `p` (out of the table of pairs), moving `p` back
    /// over them and dropping them from `v`.
    @inlinable @inline(__always)
    static func writeLastPair(of v: inout UInt64, before p: inout UnsafeMutablePointer<UInt8>) {
        let pair = Int(truncatingIfNeeded: v % 100) &* 2
        v /= 100
        p -= 2
        p[0] = digitPairs.utf8Start[pair]
        p[1] = digitPairs.utf8Start[pair &+ 1]
    }

    /// How many decimal digits `value` has (1 for 0). Four digits at a time, then comparisons: branches that are
    /// easy to predict (a table indexed by the bit length measured slower, its jump mispredicted).
    @inlinable @inline(__always)
    static func decimalDigitCount(_ value: UInt64) -> Int {
        var n = 1
        var v = value
        while v >= 10_000 {
            v /= 10_000
            n &+= 4
        }
        if v >= 100 { return n &+ (v >= 1000 ? 3 : 2) }
        return n &+ (v >= 10 ? 1 : 0)
    }

    @usableFromInline static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// An integer, `-` first when negative.
    @inlinable
    public mutating func integer(_ value: Int) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        digits(UInt64(value.magnitude))
    }

    /// `value` with exactly `decimals` digits after the point (`JSONText.fixed`'s definition).
    ///
    /// The value scaled by 10^decimals and rounded is one integer; its digits are written from the end, the
    /// point put in before the last `decimals` of them, so that every division is by the constant 100 or 10 (a
    /// multiplication), none by the run-time power of ten.
    @inlinable
    public mutating func fixed(_ value: Double, decimals: Int) {
        _ = fixedForm(value, decimals: decimals)
    }

    /// Writes `fixed(value, decimals:)` and tells whether that was the fixed form (digits, a point when
    /// `decimals` > 0), not `null` or the shortest form of a huge value.
    @inlinable
    mutating func fixedForm(_ value: Double, decimals: Int) -> Bool {
        guard value.isFinite else {
            literal("null")
            return false
        }
        let d = min(max(decimals, 0), 9)
        let scaled = value.magnitude * Double(Self.powerOfTen(d))
        guard scaled < 9_007_199_254_740_991.5 else {
            string(utf8: "\(value)")
            return false
        }
        // Rounded half away from zero: below 2^53 the truncation and the fraction left are exact.
        var units = UInt64(scaled)
        if scaled - Double(units) >= 0.5 { units &+= 1 }
        if units >= 9_007_199_254_740_992 {
            string(utf8: "\(value)")
            return false
        }
        let negative = value < 0 && units != 0
        // At least one digit before the point: `0.250`, not `.250`.
        let digitCount = max(Self.decimalDigitCount(units), d &+ 1)
        let n = digitCount &+ (d > 0 ? 1 : 0) &+ (negative ? 1 : 0)
        guard room(n) else { return true }
        var p = base + count + n
        var v = units
        if d > 0 {
            var left = d
            while left >= 2 {
                Self.writeLastPair(of: &v, before: &p)
                left &-= 2
            }
            if left == 1 {
                p -= 1
                p[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
                v /= 10
            }
            p -= 1
            p[0] = UInt8(ascii: ".")
        }
        p = Self.writeDigits(v, before: p)
        if negative {
            p -= 1
            p[0] = UInt8(ascii: "-")
        }
        count &+= n
        return true
    }

    /// 10^d for d in 0 ... 9.
    @inlinable @inline(__always)
    static func powerOfTen(_ d: Int) -> UInt64 {
        switch d {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        case 8: 100_000_000
        default: 1_000_000_000
        }
    }

    /// `fixed(value, decimals:)` without trailing zeros after the point, nor the point when nothing follows it
    /// (`2.5`, `3`): the feed's short numbers.
    @inlinable
    public mutating func trimmedFixed(_ value: Double, decimals: Int) {
        let start = count
        // Only the fixed form: `null` and a huge value's shortest form (`1.5e+300`) stay as they are.
        guard fixedForm(value, decimals: decimals), !overflowed, decimals > 0 else { return }
        while count > start, base[count &- 1] == UInt8(ascii: "0") { count &-= 1 }
        if count > start, base[count &- 1] == UInt8(ascii: ".") { count &-= 1 }
    }

    /// `JSONText.shortest(value)`, or the integer's digits when `value` is a whole number under 10^9 in magnitude
    /// (`-59`, not `-59.0`).
    @inlinable
    public mutating func compact(_ value: Double) {
        if value == value.rounded(), value.magnitude < 1e9 {
            integer(Int(value))
        } else {
            string(utf8: JSONText.shortest(value))
        }
    }

    /// `text`'s UTF-8 as it is (for text known to need no escaping, such as numbers).
    @inlinable
    public mutating func string(utf8 text: String) {
        var text = text
        text.withUTF8 { bytes($0) }
    }

    /// `text` as a JSON string literal: quotes, backslashes and control characters escaped (RFC 8259 §7); other
    /// characters as they are. The one escaper.
    @inlinable
    public mutating func quoted(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            if !quotedPlain(utf8) { quotedEscaping(utf8) }
        }
    }

    /// Writes `utf8` in quotes when none of its bytes needs escaping (the usual ids and names): each word is
    /// checked and stored as it is read. Returns false, having written nothing, when a byte may need escaping or
    /// the room is short; `quotedEscaping` then writes it.
    @inlinable @inline(__always)
    mutating func quotedPlain(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = utf8.count
        guard count &+ n &+ 2 <= capacity else { return false }
        let out = base + count
        if let source = utf8.baseAddress {
            let words = UnsafeRawPointer(source), to = UnsafeMutableRawPointer(out + 1)
            var i = 0
            while i &+ 8 <= n {
                let word = words.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if Self.needsEscape(word) { return false }
                to.storeBytes(of: word, toByteOffset: i, as: UInt64.self)
                i &+= 8
            }
            while i < n {
                let b = source[i]
                if b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { return false }
                out[i &+ 1] = b
                i &+= 1
            }
        }
        out[0] = UInt8(ascii: "\"")
        out[n &+ 1] = UInt8(ascii: "\"")
        count &+= n &+ 2
        return true
    }

    /// `quoted` for text with bytes to escape.
    @usableFromInline
    mutating func quotedEscaping(_ utf8: UnsafeBufferPointer<UInt8>) {
        byte(UInt8(ascii: "\""))
        if let start = utf8.baseAddress {
            var plainFrom = 0
            var i = 0
            while i < utf8.count {
                // Eight bytes at a time while none of them needs escaping (the usual ids and names).
                if i &+ 8 <= utf8.count {
                    let word = UnsafeRawPointer(start + i).loadUnaligned(as: UInt64.self)
                    if !Self.needsEscape(word) {
                        i &+= 8
                        continue
                    }
                }
                let b = utf8[i]
                if b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                    bytes(UnsafeBufferPointer(rebasing: utf8[plainFrom..<i]))
                    plainFrom = i &+ 1
                    escape(b)
                }
                i &+= 1
            }
            bytes(UnsafeBufferPointer(rebasing: utf8[plainFrom...]))
        }
        byte(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes of `word` is a control character, `"` or `\\`: each test is "has a zero
    /// byte" on a transformed word (the bit trick of Hacker's Delight, 6-1), which may only err towards true for
    /// bytes of 0x80 and above, so a true answer is rechecked byte by byte.
    @inlinable @inline(__always)
    static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        let below20 = (word &- ones &* 0x20) & ~word & highs != 0
        return below20 || hasZero(word ^ (ones &* 0x22)) || hasZero(word ^ (ones &* 0x5C))
    }

    @usableFromInline mutating func escape(_ b: UInt8) {
        byte(UInt8(ascii: "\\"))
        switch b {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): byte(b)
        case UInt8(ascii: "\n"): byte(UInt8(ascii: "n"))
        case UInt8(ascii: "\r"): byte(UInt8(ascii: "r"))
        case UInt8(ascii: "\t"): byte(UInt8(ascii: "t"))
        default:
            literal("u00")
            hex(b)
        }
    }

    /// Two lower-case hex digits of `b`.
    @inlinable @inline(__always)
    public mutating func hex(_ b: UInt8) {
        guard room(2) else { return }
        base[count] = Self.hexDigit(b >> 4)
        base[count &+ 1] = Self.hexDigit(b & 0x0F)
        count &+= 2
    }

    /// The low `digits` hex digits of `value` (at most 16), most significant first, lower case: two digits at a
    /// time from the end, out of the table of the pairs "00" ... "ff".
    @inlinable
    public mutating func hex(_ value: UInt64, digits: Int) {
        let n = min(max(digits, 0), 16)
        guard room(n) else { return }
        let pairs = Self.hexPairs.utf8Start
        var p = base + count + n
        var v = value
        var left = n
        while left >= 2 {
            let pair = Int(truncatingIfNeeded: v & 0xFF) &* 2
            p -= 2
            p[0] = pairs[pair]
            p[1] = pairs[pair &+ 1]
            v >>= 8
            left &-= 2
        }
        if left == 1 {
            p -= 1
            p[0] = Self.hexDigit(UInt8(truncatingIfNeeded: v & 0xF))
        }
        count &+= n
    }

    @usableFromInline static let hexPairs: StaticString = """
        000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f\
        303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f\
        606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f\
        909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf\
        c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeef\
        f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff
        """

    /// Two upper-case hex digits of `b`.
    @inlinable @inline(__always)
    public mutating func upperHex(_ b: UInt8) {
        guard room(2) else { return }
        base[count] = Self.hexDigit(b >> 4, upper: true)
        base[count &+ 1] = Self.hexDigit(b & 0x0F, upper: true)
        count &+= 2
    }

    @inlinable @inline(__always)
    static func hexDigit(_ nibble: UInt8, upper: Bool = false) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : (upper ? UInt8(ascii: "A") : UInt8(ascii: "a")) &+ nibble &- 10
    }
}
