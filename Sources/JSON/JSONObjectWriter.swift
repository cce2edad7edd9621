/// Writes one JSON object with keys in the order they are added, into a UTF-8 byte buffer: the one writer behind
/// BlueDot's compact JSON (sightings, feed events, API answers), escaping through `JSONText`.
public struct JSONObjectWriter {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]
    private var first = true

    /// Starts an empty object.
    public init() {
        bytes.reserveCapacity(256)
    }

    /// Adds a key whose value is already JSON (a number, `null`, `true`, a nested object or array).
    public mutating func raw(_ key: String, _ value: String) {
        appendKey(key)
        bytes.append(contentsOf: value.utf8)
    }

    /// Adds a string value, escaped.
    public mutating func string(_ key: String, _ value: String) {
        appendKey(key)
        JSONText.appendQuoted(value, to: &bytes)
    }

    /// Closes the object and returns it.
    public func finish() -> String {
        var out = bytes
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func appendKey(_ key: String) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        JSONText.appendQuoted(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }
}
