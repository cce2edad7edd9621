import BlueDotCore
import JSON
import Site

/// The kind of value a setting takes: how its text is read (with the error a bad text gets), its name in help,
/// what a shell completes it with, and the form of its flag (a boolean's flag stands alone).
public struct SettingKind<Value>: Sendable {
    /// The value's name in help (`file`, `seconds`).
    public let placeholder: String
    /// What a shell completes it with.
    public let completion: SettingCompletion
    /// The flag's form when the setting does not name its flags: `--key VALUE`, or `--key` alone for booleans.
    public let flagForm: SettingFlag.Form
    /// Reads the text of the setting named by the second argument (error messages name it).
    let parse: @Sendable (String, String) throws(ConfigurationError.Reason) -> Value

    /// A kind read by `parse`.
    public init(
        _ placeholder: String, completion: SettingCompletion = .none, flagForm: SettingFlag.Form = .value,
        parse: @escaping @Sendable (_ text: String, _ key: String) throws(ConfigurationError.Reason) -> Value
    ) {
        self.placeholder = placeholder
        self.completion = completion
        self.flagForm = flagForm
        self.parse = parse
    }
}

extension SettingKind<String> {
    /// Any text, even empty (the setting checks it).
    public static func text(_ placeholder: String) -> Self {
        Self(placeholder) { text, _ in text }
    }

    /// Text that is not empty.
    public static func nonEmpty(_ placeholder: String, completion: SettingCompletion = .none) -> Self {
        Self(placeholder, completion: completion) { text, _ throws(ConfigurationError.Reason) in
            guard !text.isEmpty else { throw .badType(expected: "a non-empty string", got: text) }
            return text
        }
    }

    /// A file's path.
    public static var file: Self { nonEmpty("file", completion: .file) }

    /// A folder's path.
    public static var folder: Self { nonEmpty("folder", completion: .directory) }

    /// An id that is one MQTT topic level (a receiver's, an anchor's).
    public static var topicLevel: Self {
        let nonEmpty = nonEmpty("id")
        return Self("id") { text, key throws(ConfigurationError.Reason) in
            let text = try nonEmpty.parse(text, key)
            guard SiteTopics.isTopicLevel(text) else { throw .badValue("\(key) must not contain /, + or #") }
            return text
        }
    }

    /// An MQTT broker's URL (`mqtt://[user@]host[:port]`, `mqtts://...`), normalized with its port.
    public static var brokerURL: Self {
        Self("url") { text, _ throws(ConfigurationError.Reason) in
            do {
                return try MQTTOptions(url: text).url
            } catch {
                throw .badValue("\(error)")
            }
        }
    }
}

extension SettingKind<Bool> {
    /// `true` or `false`; its flag stands alone for `true`.
    public static var boolean: Self {
        Self("true|false", completion: .choices(["true", "false"]), flagForm: .presence("true")) {
            text, _ throws(ConfigurationError.Reason) in
            switch text {
            case "true": return true
            case "false": return false
            default: throw .badType(expected: "true or false", got: text)
            }
        }
    }
}

extension SettingKind<Int> {
    /// A whole number in `range`.
    public static func integer(_ placeholder: String, in range: ClosedRange<Int>) -> Self {
        Self(placeholder) { text, _ throws(ConfigurationError.Reason) in
            guard let n = Int(text) else { throw .badType(expected: "an integer", got: text) }
            guard range.contains(n) else {
                throw .badValue("must be \(range.lowerBound) ... \(range.upperBound), got \(n)")
            }
            return n
        }
    }
}

extension SettingKind<Double> {
    /// A finite number (the setting or the whole configuration checks its range).
    public static func number(_ placeholder: String) -> Self {
        Self(placeholder) { text, _ throws(ConfigurationError.Reason) in
            guard let x = Double(text), x.isFinite else { throw .badType(expected: "a number", got: text) }
            return x
        }
    }

    /// A number in `range`, whose unit is the placeholder (`publish-buffer must be 1 ... 3600 seconds`).
    public static func number(_ placeholder: String, in range: ClosedRange<Double>) -> Self {
        let number = number(placeholder)
        return Self(placeholder) { text, key throws(ConfigurationError.Reason) in
            let x = try number.parse(text, key)
            guard range.contains(x) else {
                let (low, high) = (compact(range.lowerBound), compact(range.upperBound))
                throw .badValue("\(key) must be \(low) ... \(high) \(placeholder)")
            }
            return x
        }
    }

    /// `1` for 1.0, `0.5` for 0.5: BlueDotCore's compact form of a number.
    private static func compact(_ x: Double) -> String {
        JSONText.text(estimatedBytes: 32) { $0.compact(x) }
    }
}
