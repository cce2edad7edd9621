
/// A problem found while scanning JSON text: where (a byte offset into the scanned text) and what.
public struct JSONSyntaxError: Error, Sendable, Hashable {
    /// Byte offset of the problem in the scanned text; nil for problems of the value as a whole (a missing field).
    public var offset: Int?
    /// What is wrong, e.g. `rssi: expected a number`.
    public var message: String

    /// Creates an error.
    public init(offset: Int?, message: String) {
        self.offset = offset
        self.message = message
    }

    /// The message with its 1-based column when it has one: `rssi: expected a number (column 35)`.
    public var located: String {
        offset.map { "\(message) (column \($0 + 1))" } ?? message
    }
}

/// A forward-only JSON tokenizer over UTF-8 bytes (RFC 8259), used by the line readers here, the venue parser
/// (`Formats`), the site's MQTT payloads (`Site`) and gpsd's reports (`GNSS`).
///
/// It reads one value at a time so that flat JSONL objects parse without building a tree: the caller asks for
/// keys in turn and reads or skips each value. Numbers also accept `NaN`, `Infinity` and `-Infinity` (written by
/// Python's `json` module) so that readers can count non-finite values instead of calling the line malformed.
public struct JSONScanner {
    /// The text being scanned.
    public let bytes: UnsafeBufferPointer<UInt8>
    /// Index of the next unread byte.
    public internal(set) var index: Int
    /// Index of the opening quote of the key `nextKey` returned last.
    var keyStart = 0

    /// Starts scanning at the first byte; the caller keeps `bytes` alive while scanning.
    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        self.index = 0
    }

    /// Skips spaces, tabs, carriage returns and line feeds.
    @inline(__always)
    public mutating func skipWhitespace() {
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D else { return }
            index += 1
        }
    }

    /// The next significant byte, after whitespace, or nil at the end.
    @inline(__always)
    public mutating func peek() -> UInt8? {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : nil
    }

    /// Whether only whitespace remains.
    public mutating func atEnd() -> Bool {
        peek() == nil
    }

    /// An error at the current position.
    public func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: index, message: message)
    }

    /// Consumes the given byte (after whitespace) or fails naming what was expected.
    public mutating func expect(_ byte: UInt8, _ what: @autoclosure () -> String) throws(JSONSyntaxError) {
        guard peek() == byte else { throw error("expected \(what())") }
        index += 1
    }

    /// Consumes `{`; `context` names the value in the error (`truth: expected an object`).
    public mutating func beginObject(_ context: @autoclosure () -> String = "") throws(JSONSyntaxError) {
        guard peek() == UInt8(ascii: "{") else {
            let context = context()
            throw error(context.isEmpty ? "expected an object" : "\(context): expected an object")
        }
        index += 1
    }

    /// Reads the next key of an object begun with `beginObject`, or returns nil after its closing `}`.
    ///
    /// `first` tracks whether a separating comma is due; start it at true.
    public mutating func nextKey(first: inout Bool) throws(JSONSyntaxError) -> String? {
        guard try atKey(first: &first) else { return nil }
        let key = try string()
        try expect(UInt8(ascii: ":"), "':' after key \"\(key)\"")
        return key
    }

    /// Reads the next key like `nextKey`, without making a `String` of it: the flat line parsers match it against
    /// their literal keys (`switch key { case "t": ... }`).
    public mutating func nextKeyBytes(first: inout Bool) throws(JSONSyntaxError) -> JSONKey? {
        guard try atKey(first: &first) else { return nil }
        let end = plainEnd(from: index + 1, stoppingAtNonASCII: false)
        let key: JSONKey
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            key = JSONKey(raw: UnsafeBufferPointer(rebasing: bytes[(index + 1)..<end]), decoded: nil)
            index = end + 1
        } else {
            let decoded = try string()
            key = JSONKey(raw: UnsafeBufferPointer(start: nil, count: 0), decoded: decoded)
        }
        guard peek() == UInt8(ascii: ":") else { throw error("expected ':' after key \"\(key)\"") }
        index += 1
        return key
    }

    /// Moves to the opening quote of the next key (past a separating comma when `first` is false) and returns
    /// true, or consumes the object's closing `}` and returns false.
    private mutating func atKey(first: inout Bool) throws(JSONSyntaxError) -> Bool {
        guard let byte = peek() else { throw error("unterminated object") }
        if byte == UInt8(ascii: "}") {
            index += 1
            return false
        }
        if !first {
            guard byte == UInt8(ascii: ",") else { throw error("expected ',' or '}'") }
            index += 1
        }
        first = false
        guard peek() == UInt8(ascii: "\"") else { throw error("expected a key in quotes") }
        keyStart = index
        return true
    }

    /// Consumes `[`.
    public mutating func beginArray(_ context: @autoclosure () -> String) throws(JSONSyntaxError) {
        guard peek() == UInt8(ascii: "[") else { throw error("\(context()): expected an array") }
        index += 1
    }

    /// Whether another element of an array follows; consumes the separator or the closing `]`.
    public mutating func nextElement(first: inout Bool) throws(JSONSyntaxError) -> Bool {
        guard let byte = peek() else { throw error("unterminated array") }
        if byte == UInt8(ascii: "]") {
            index += 1
            return false
        }
        if !first {
            guard byte == UInt8(ascii: ",") else { throw error("expected ',' or ']'") }
            index += 1
        }
        first = false
        return true
    }

    /// Reads a string value; `context` names the field in the error.
    public mutating func string(_ context: @autoclosure () -> String) throws(JSONSyntaxError) -> String {
        guard peek() == UInt8(ascii: "\"") else { throw error("\(context()): expected a string") }
        return try string()
    }

    /// Reads a number (or `NaN`/`Infinity`) value; `context` names the field in the error.
    public mutating func number(_ context: @autoclosure () -> String) throws(JSONSyntaxError) -> Double {
        guard let byte = peek(), byte == UInt8(ascii: "-") || byte == UInt8(ascii: "N") || byte == UInt8(ascii: "I")
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        else { throw error("\(context()): expected a number") }
        return try number()
    }

    /// Reads `true` or `false`; `context` names the field in the error.
    public mutating func bool(_ context: @autoclosure () -> String) throws(JSONSyntaxError) -> Bool {
        if literal("true") { return true }
        if literal("false") { return false }
        throw error("\(context()): expected true or false")
    }

    /// Consumes `null` if it comes next.
    public mutating func null() -> Bool {
        literal("null")
    }

    /// Consumes the given ASCII word if it comes next.
    public mutating func literal(_ word: StaticString) -> Bool {
        skipWhitespace()
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let start = word.utf8Start
        for k in 0..<count where bytes[index + k] != start[k] { return false }
        index += count
        return true
    }

    /// Skips one value of any kind, nested objects and arrays included.
    public mutating func skipValue() throws(JSONSyntaxError) {
        guard let byte = peek() else { throw error("expected a value") }
        switch byte {
        case UInt8(ascii: "{"):
            index += 1
            var first = true
            while try nextKey(first: &first) != nil { try skipValue() }
        case UInt8(ascii: "["):
            index += 1
            var first = true
            while try nextElement(first: &first) { try skipValue() }
        case UInt8(ascii: "\""):
            _ = try string()
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            _ = try bool("value")
        case UInt8(ascii: "n"):
            guard null() else { throw error("expected a value") }
        default:
            _ = try number("value")
        }
    }
}

/// A key as `JSONScanner.nextKeyBytes` found it: the bytes between its quotes (valid while the scanned text is), or,
/// for a key with escapes, the decoded text. Matched against literal keys in `switch` statements.
public struct JSONKey: CustomStringConvertible {
    public let raw: UnsafeBufferPointer<UInt8>
    public let decoded: String?

    public var description: String { decoded ?? String(decoding: raw, as: UTF8.self) }

    /// Whether `key` is the literal `pattern`.
    public static func ~= (pattern: StaticString, key: JSONKey) -> Bool {
        if let decoded = key.decoded { return decoded == pattern.description }
        guard pattern.utf8CodeUnitCount == key.raw.count else { return false }
        let literal = pattern.utf8Start
        for i in 0..<key.raw.count where key.raw[i] != literal[i] { return false }
        return true
    }
}
