
extension JSONScanner {
    /// Reads a JSON number (RFC 8259 §6) or one of `NaN`, `Infinity`, `-Infinity`.
    ///
    /// Correctly rounded: a decimal mantissa below 2^53 with a power of ten up to 22 converts with one exact
    /// IEEE operation (Clinger's fast path, W. D.
    /// Clinger, "How to Read Floating Point Numbers Accurately", PLDI 1990); anything else falls back to the
    /// standard library's correctly rounded parser.
    public mutating func number() throws(JSONSyntaxError) -> Double {
        skipWhitespace()
        let start = index
        guard index < bytes.count else { throw JSONSyntaxError(offset: start, message: "expected a number") }
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        // The words Python's `json` writes for non-finite values.
        if index < bytes.count, bytes[index] == UInt8(ascii: "N") || bytes[index] == UInt8(ascii: "I") {
            index = start
            if !negative, literal("NaN") { return .nan }
            if !negative, literal("Infinity") { return .infinity }
            if literal("-Infinity") { return -.infinity }
            throw JSONSyntaxError(offset: start, message: "expected a number")
        }
        // Every digit goes into the mantissa (leading zeros of a fraction too): with at most 19 digits it is
        // exact; with more it wraps, and the standard library's parser below reads the text instead.
        var mantissa: UInt64 = 0
        var digitCount = 0
        var exponent10 = 0
        let integerStart = index
        while index < bytes.count, let digit = Self.digit(bytes[index]) {
            mantissa = mantissa &* 10 &+ UInt64(digit)
            index &+= 1
        }
        let integerDigits = index - integerStart
        guard integerDigits > 0 else { throw JSONSyntaxError(offset: start, message: "expected a number") }
        if integerDigits > 1, bytes[integerStart] == UInt8(ascii: "0") {
            throw JSONSyntaxError(offset: start, message: "leading zero in number")
        }
        digitCount = integerDigits
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < bytes.count, let digit = Self.digit(bytes[index]) {
                mantissa = mantissa &* 10 &+ UInt64(digit)
                index &+= 1
            }
            guard index > fractionStart else { throw error("expected a digit after '.'") }
            digitCount &+= index - fractionStart
            exponent10 = fractionStart - index
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            let exponentStart = index
            var written = 0
            while index < bytes.count, let digit = Self.digit(bytes[index]) {
                if written < 100_000 { written = written * 10 + Int(digit) }
                index += 1
            }
            guard index > exponentStart else { throw error("expected a digit in exponent") }
            exponent10 += exponentNegative ? -written : written
        }
        if digitCount <= 19, mantissa < (1 << 53), exponent10 >= -22, exponent10 <= 22 {
            let m = Double(mantissa)
            let value = exponent10 < 0 ? m / Self.exactPowerOfTen(-exponent10) : m * Self.exactPowerOfTen(exponent10)
            return negative ? -value : value
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text) else { throw JSONSyntaxError(offset: start, message: "invalid number") }
        return value
    }

    /// 10^k for k in 0 ... 22, each exact in a Double; a switch rather than a table, so that no lazily made global
    /// is checked on every number.
    @inline(__always)
    private static func exactPowerOfTen(_ k: Int) -> Double {
        switch k {
        case 0: 1e0
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        default: 1e22
        }
    }

    /// The value of an ASCII decimal digit, or nil.
    @inline(__always)
    private static func digit(_ byte: UInt8) -> UInt8? {
        let d = byte &- UInt8(ascii: "0")
        return d < 10 ? d : nil
    }
}

extension JSONScanner {
    /// Reads a number and rejects NaN and infinities; `context` names the field in the error.
    public mutating func finiteNumber(_ context: String) throws(JSONSyntaxError) -> Double {
        skipWhitespace()
        let start = index
        let x = try number(context)
        guard x.isFinite else { throw JSONSyntaxError(offset: start, message: "\(context): expected a finite number") }
        return x
    }

    /// Reads a whole number that fits an `Int`; `context` names the field in the error.
    public mutating func integer(_ context: String) throws(JSONSyntaxError) -> Int {
        skipWhitespace()
        let start = index
        let x = try number(context)
        guard x.isFinite, x == x.rounded(), x.magnitude < 1e15 else {
            throw JSONSyntaxError(offset: start, message: "\(context): expected an integer")
        }
        return Int(x)
    }
}
