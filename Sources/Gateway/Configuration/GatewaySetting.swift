/// One setting of `bluedot run`, declared once: its configuration key, the kind of value it takes, its help, the
/// command-line flags that give it, and how its value sets a `GatewayConfiguration`.
///
/// The file parser (`ConfigurationFile`) reads `key = value` lines through these rows, and `bluedot`'s
/// `SettingFlags` turns the same rows into swift-argument-parser options, so a flag and its key cannot drift
/// apart: there is nothing to add on one side only. The rows themselves are `GatewaySetting.all`.
public struct GatewaySetting: Sendable {
    /// The configuration key (`venue`, `h4-tcp`, ...); also the flag's name unless `flags` says otherwise.
    public let key: String
    /// The value's name in help and documentation (`file`, `host:port`, `seconds`).
    public let placeholder: String
    /// What a shell offers to complete the value with.
    public let completion: SettingCompletion
    /// One line of help: what the setting does, with its default.
    public let help: String
    /// The flags that give this setting, in the order help lists them; empty: the configuration file only.
    public let flags: [SettingFlag]
    /// Settings sharing a name here are alternatives: at most one of them is given as a flag (the controllers).
    public let alternatives: String?
    /// An environment variable read when neither the file nor a flag gives the setting (`BLUEDOT_TOKEN`).
    public let environment: String?
    /// A valid value, as a user would write it: the tests give every setting this value both ways.
    public let example: String
    private let set: @Sendable (String, inout GatewayConfiguration) throws(ConfigurationError.Reason) -> Void

    /// Declares a setting whose text is read as `kind` and then stored by `set`. `flags` nil: one flag named
    /// like the key, in the kind's form (`--venue FILE`, `--insecure`), with this help.
    public init<Value>(
        _ key: String, _ kind: SettingKind<Value>, example: String, help: String, flags: [SettingFlag]? = nil,
        alternatives: String? = nil, environment: String? = nil,
        set: @escaping @Sendable (inout GatewayConfiguration, Value) throws(ConfigurationError.Reason) -> Void
    ) {
        self.key = key
        placeholder = kind.placeholder
        completion = kind.completion
        self.help = help
        self.flags = flags ?? [SettingFlag(key, kind.flagForm, help: help)]
        self.alternatives = alternatives
        self.environment = environment
        self.example = example
        self.set = { text, configuration throws(ConfigurationError.Reason) in
            try set(&configuration, try kind.parse(text, key))
        }
    }

    /// Declares a setting whose value is stored at `path` as it is.
    public init<Value>(
        _ key: String, _ kind: SettingKind<Value>, example: String, help: String, flags: [SettingFlag]? = nil,
        environment: String? = nil, sets path: WritableKeyPath<GatewayConfiguration, Value> & Sendable
    ) {
        self.init(key, kind, example: example, help: help, flags: flags, environment: environment) { c, value in
            c[keyPath: path] = value
        }
    }

    /// Declares a setting whose value is stored at the optional `path` (nil: the setting was not given).
    public init<Value>(
        _ key: String, _ kind: SettingKind<Value>, example: String, help: String, flags: [SettingFlag]? = nil,
        environment: String? = nil, sets path: WritableKeyPath<GatewayConfiguration, Value?> & Sendable
    ) {
        self.init(key, kind, example: example, help: help, flags: flags, environment: environment) { c, value in
            c[keyPath: path] = value
        }
    }

    /// Sets this setting from its text `value`; throws the reason the value is bad.
    public func apply(_ value: String, to configuration: inout GatewayConfiguration) throws(ConfigurationError.Reason) {
        try set(value, &configuration)
    }
}

/// A command-line flag that gives a setting.
public struct SettingFlag: Sendable, Hashable {
    /// How the flag carries the setting's text.
    public enum Form: Sendable, Hashable {
        /// `--name VALUE`: the value is the setting's text.
        case value
        /// `--name` alone: it stands for this text (`--insecure` for `insecure = true`, `--no-ha-discovery` for
        /// `ha-discovery = false`).
        case presence(String)
    }

    /// The long name, without its dashes.
    public let name: String
    /// A value flag or a presence flag.
    public let form: Form
    /// Its line of help.
    public let help: String
    /// The value's name in help when it is not the setting's (`--espresense-prefix <topic>`).
    public let placeholder: String?

    /// A flag `--name`.
    public init(_ name: String, _ form: Form, placeholder: String? = nil, help: String) {
        self.name = name
        self.form = form
        self.placeholder = placeholder
        self.help = help
    }
}

/// What a shell offers to complete a setting's value with.
public enum SettingCompletion: Sendable, Hashable {
    /// Nothing in particular.
    case none
    /// A file name.
    case file
    /// A folder name.
    case directory
    /// One of these words.
    case choices([String])
}

/// One setting given from outside the file: the row, its text, and where it came from (`--speed`, `BLUEDOT_TOKEN`),
/// which errors name.
public struct GivenSetting: Sendable {
    /// The setting.
    public let setting: GatewaySetting
    /// Its text.
    public let value: String
    /// The flag as typed (`--espresense-prefix`) or the environment variable.
    public let origin: String

    /// A setting given at `origin`.
    public init(_ setting: GatewaySetting, value: String, origin: String) {
        self.setting = setting
        self.value = value
        self.origin = origin
    }
}

extension GatewayConfiguration {
    /// Applies settings given from outside the file, in order; a bad one throws naming its flag or variable.
    public mutating func apply(_ given: [GivenSetting]) throws(ConfigurationError) {
        for item in given {
            do {
                try item.setting.apply(item.value, to: &self)
            } catch {
                throw ConfigurationError(location: item.origin, reason: error)
            }
        }
    }
}
