/// A configuration that cannot be used, naming where: the file and line, or the command-line flag.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with one setting.
    public enum Reason: Error, Sendable, Hashable, CustomStringConvertible {
        /// A key the configuration does not have.
        case unknownKey(String)
        /// A value of the wrong type (`expected an integer, got "x"`).
        case badType(expected: String, got: String)
        /// A value of the right type outside what is allowed.
        case badValue(String)
        /// A line that is not `key = value`.
        case syntax(String)
        /// A key given twice in one file.
        case duplicateKey(String)
        /// Settings that cannot go together, or one that is missing.
        case conflict(String)

        /// The reason in words.
        public var description: String {
            switch self {
            case .unknownKey(let key): "unknown key \"\(key)\""
            case .badType(let expected, let got): "expected \(expected), got \"\(got)\""
            case .badValue(let message): message
            case .syntax(let message): message
            case .duplicateKey(let key): "\"\(key)\" given twice"
            case .conflict(let message): message
            }
        }
    }

    /// Where: `FILE:LINE`, `--flag`, an environment variable (`BLUEDOT_TOKEN`), or where the whole configuration came
    /// from for whole-configuration checks.
    public var location: String
    /// The key concerned, when there is one.
    public var key: String?
    /// What is wrong.
    public var reason: Reason

    /// Creates an error.
    public init(location: String, key: String? = nil, reason: Reason) {
        self.location = location
        self.key = key
        self.reason = reason
    }

    /// `FILE:LINE: key: reason`.
    public var description: String {
        if case .unknownKey = reason { return "\(location): \(reason)" }
        if let key { return "\(location): \(key): \(reason)" }
        return "\(location): \(reason)"
    }
}
