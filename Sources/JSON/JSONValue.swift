
/// A parsed JSON document (RFC 8259), for the small files (venues) that are read whole and validated by walking.
///
/// Numbers stay `Double` (non-finite ones come from `NaN`/`Infinity` tokens or overflow and are left for the
/// validator to reject with a path); `true`/`false` are not numbers, unlike `NSNumber`.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; duplicate keys are rejected while parsing.
    case object([String: JSONValue])

    /// Parses a whole document from UTF-8 bytes; the error's offset is a byte offset into `utf8`.
    public static func parse(_ utf8: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        try utf8.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) -> JSONValue in
            var scanner = JSONScanner(buffer)
            let value = try scanner.value(depth: 0)
            guard scanner.atEnd() else { throw scanner.error("unexpected text after the JSON value") }
            return value
        }
    }

    /// A short name of the value's kind, for error messages (`got a string`).
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONScanner {
    /// Deepest nesting accepted, so that hostile input cannot exhaust the stack.
    static let maximumDepth = 256

    /// Reads any value into a tree.
    public mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
        guard let byte = peek() else { throw error("expected a value") }
        switch byte {
        case UInt8(ascii: "{"):
            index += 1
            var members: [String: JSONValue] = [:]
            var first = true
            while true {
                guard let key = try nextKey(first: &first) else { break }
                guard members[key] == nil else {
                    throw JSONSyntaxError(offset: keyStart, message: "duplicate key \"\(key)\"")
                }
                members[key] = try value(depth: depth + 1)
            }
            return .object(members)
        case UInt8(ascii: "["):
            index += 1
            var elements: [JSONValue] = []
            var first = true
            while try nextElement(first: &first) { elements.append(try value(depth: depth + 1)) }
            return .array(elements)
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            return .bool(try bool("value"))
        case UInt8(ascii: "n"):
            guard null() else { throw error("expected a value") }
            return .null
        default:
            return .number(try number("value"))
        }
    }
}
