import BlueDotCore
import JSON
import Site

/// A JSON object written key by key in the order given, so that every payload is the same bytes for the same
/// values (retained messages compare equal, tests pin them): BlueDotCore's `JSONObjectWriter`, the one object
/// writer, with the value kinds Home Assistant's payloads use.
struct HomeAssistantJSON {
    private var writer = JSONObjectWriter()

    /// An empty object.
    init() {}

    /// Adds `"key": "value"`.
    mutating func string(_ key: String, _ value: String) {
        writer.string(key, value)
    }

    /// Adds `"key": "value"`, or `"key": null` when `value` is nil.
    mutating func stringOrNull(_ key: String, _ value: String?) {
        raw(key, value.map(JSONText.quoted) ?? "null")
    }

    /// Adds `"key": ["a", "b"]`.
    mutating func strings(_ key: String, _ values: [String]) {
        raw(key, "[" + values.map(JSONText.quoted).joined(separator: ",") + "]")
    }

    /// Adds a number with exactly `decimals` digits after the point (`null` when not finite).
    mutating func number(_ key: String, _ value: Double, decimals: Int) {
        raw(key, JSONText.fixed(value, decimals: decimals))
    }

    /// Adds an integer.
    mutating func integer(_ key: String, _ value: Int) {
        raw(key, String(value))
    }

    /// Adds `true` or `false`.
    mutating func boolean(_ key: String, _ value: Bool) {
        raw(key, value ? "true" : "false")
    }

    /// Adds an object.
    mutating func object(_ key: String, _ value: HomeAssistantJSON) {
        raw(key, value.text)
    }

    /// Adds a list of objects.
    mutating func objects(_ key: String, _ values: [HomeAssistantJSON]) {
        raw(key, "[" + values.map(\.text).joined(separator: ",") + "]")
    }

    /// Adds a value that is JSON text already.
    mutating func raw(_ key: String, _ json: String) {
        writer.raw(key, json)
    }

    /// The object as JSON text.
    var text: String { writer.finish() }
}
