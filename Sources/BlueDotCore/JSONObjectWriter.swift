/// Writes one JSON object with keys in the order they are added, into a UTF-8 byte buffer: the one writer behind
/// BlueDot's compact JSON (sightings, feed events, API answers), escaping through `JSONText`.
///
/// Numbers go in as numbers (`fixed`, `integer`), so a line is built without an intermediate `String` per value;
/// `append(to:)` adds the object to a caller's buffer (an output line, an MQTT payload) without a copy as text.
public struct JSONObjectWriter {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]
    private var first = true

    /// Starts an empty object.
    public init() {
        bytes.reserveCapacity(256)
    }

    private init(taking buffer: inout [UInt8]) {
        bytes = []
        swap(&bytes, &buffer)
        bytes.append(UInt8(ascii: "{"))
    }

    /// Writes one object at the end of `out` (an output buffer of many lines): `build` adds its members. No buffer
    /// of its own is made, so a line costs no allocation once `out` has grown.
    public static func append(to out: inout [UInt8], _ build: (inout JSONObjectWriter) -> Void) {
        var writer = JSONObjectWriter(taking: &out)
        build(&writer)
        writer.bytes.append(UInt8(ascii: "}"))
        swap(&writer.bytes, &out)
    }

    /// Adds a key whose value is already JSON (a number, `null`, `true`, a nested object or array).
    public mutating func raw(_ key: String, _ value: String) {
        appendKey(key)
        bytes.append(contentsOf: value.utf8)
    }

    /// Adds a key whose value is already JSON, as UTF-8 bytes.
    public mutating func raw(_ key: String, bytes value: [UInt8]) {
        appendKey(key)
        bytes.append(contentsOf: value)
    }

    /// Adds a string value, escaped.
    public mutating func string(_ key: String, _ value: String) {
        appendKey(key)
        JSONText.appendQuoted(value, to: &bytes)
    }

    /// Adds a number with exactly `decimals` digits after the point (`JSONText.fixed`).
    public mutating func fixed(_ key: String, _ value: Double, decimals: Int) {
        appendKey(key)
        JSONText.appendFixed(value, decimals: decimals, to: &bytes)
    }

    /// Adds an integer.
    public mutating func integer(_ key: String, _ value: Int) {
        appendKey(key)
        JSONText.appendInteger(value, to: &bytes)
    }

    /// Adds `true` or `false`.
    public mutating func bool(_ key: String, _ value: Bool) {
        appendKey(key)
        bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
    }

    /// Adds a key whose value the caller writes itself, as JSON, into the buffer.
    public mutating func value(_ key: String, _ write: (inout [UInt8]) -> Void) {
        appendKey(key)
        write(&bytes)
    }

    /// Closes the object and returns it.
    public func finish() -> String {
        var out = bytes
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Closes the object and returns its UTF-8 bytes.
    public consuming func finishBytes() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// Appends the closed object to `out`.
    public func append(to out: inout [UInt8]) {
        out.append(contentsOf: bytes)
        out.append(UInt8(ascii: "}"))
    }

    private mutating func appendKey(_ key: String) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        JSONText.appendQuoted(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
}
