import ArgumentParser
import Gateway

/// Which of the gateway's settings a command takes as flags.
protocol SettingSelection: Sendable {
    /// The keys offered; nil: every setting of `GatewaySetting.all`.
    static var keys: Set<String>? { get }
}

/// The gateway's settings as swift-argument-parser options and flags, made from the one table of settings
/// (`GatewaySetting.all`) instead of a property per flag. Each row's flags become `Option<String?>` or `Flag<Bool>`
/// values with the row's name, help, value name and completion; what the user typed goes back through the row as
/// text, exactly as a configuration file's line does, so a flag and its key have one parser and one meaning.
///
/// Why this design: swift-argument-parser finds a type's arguments by reflecting a fresh instance with
/// `Mirror(reflecting:)`, which honours `CustomReflectable`; this type's `customMirror` lists the table's
/// arguments, and its `init(from:)` decodes them under the same names. So the parser's own definitions are
/// complete: `--help`, typo suggestions ("Did you mean '--venue'?"), missing-value errors, shell completion
/// scripts and `--experimental-dump-help` (from which man pages are generated) all see every setting. The
/// alternatives were weighed and rejected: declaring each flag as a property again (two declarations per setting,
/// the drift this replaces), or letting the parser take only `--config` and pass the rest through to our own
/// parser with help written into the discussion (the parser then lists, completes and checks none of the
/// settings, as swift-configuration's guide to argument-parser integration warns). The cost is reliance on how the
/// parser discovers arguments (reflection, not a documented extension point): the golden help (`RunHelpTests`) and
/// the test that every row works as a flag (`SettingFlagsTests`) fail at once if a new release stops seeing them.
struct SettingFlags<Selection: SettingSelection>: ParsableArguments, CustomReflectable {
    /// The settings given as flags, in the table's order (the order they are applied in).
    private(set) var given: [GivenSetting] = []

    /// The flags of the selected rows, each with its row.
    static var flags: [(setting: GatewaySetting, flag: SettingFlag)] {
        GatewaySetting.all.filter { Selection.keys?.contains($0.key) ?? true }
            .flatMap { setting in setting.flags.map { (setting, $0) } }
    }

    /// No flags given (the parser's definition instance).
    init() {}

    /// Reads the flags the parser found, by their names.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FlagName.self)
        for (setting, flag) in Self.flags {
            let name = FlagName(flag.name)
            switch flag.form {
            case .value:
                if let value = try container.decode(Option<String?>.self, forKey: name).wrappedValue {
                    given.append(GivenSetting(setting, value: value, origin: "--\(flag.name)"))
                }
            case .presence(let value):
                if try container.decode(Flag<Bool>.self, forKey: name).wrappedValue {
                    given.append(GivenSetting(setting, value: value, origin: "--\(flag.name)"))
                }
            }
        }
    }

    /// The arguments the parser sees: one per flag, labelled with the flag's name.
    var customMirror: Mirror {
        Mirror(self, children: Self.flags.map { setting, flag in
            (label: flag.name, value: Self.argument(flag, of: setting))
        })
    }

    /// At most one flag of each group of alternatives (one controller: `--hci`, `--h4-tcp` or `--h4-tty`).
    func validate() throws {
        let groups = given.compactMap(\.setting.alternatives)
        for group in Set(groups) where groups.count(where: { $0 == group }) > 1 {
            let names = Self.flags.filter { $0.setting.alternatives == group }.map { "--\($0.flag.name)" }
            throw ValidationError("give only one of \(names.joined(separator: ", "))")
        }
    }

    /// The parser's definition of one flag.
    private static func argument(_ flag: SettingFlag, of setting: GatewaySetting) -> Any {
        switch flag.form {
        case .value:
            Option<String?>(
                name: .customLong(flag.name),
                help: ArgumentHelp(flag.help, valueName: flag.placeholder ?? setting.placeholder),
                completion: completion(setting.completion))
        case .presence:
            Flag(wrappedValue: false, name: .customLong(flag.name), help: ArgumentHelp(flag.help))
        }
    }

    private static func completion(_ completion: SettingCompletion) -> CompletionKind {
        switch completion {
        case .none: .default
        case .file: .file()
        case .directory: .directory
        case .choices(let words): .list(words)
        }
    }

    /// A flag's name as the decoder's key.
    private struct FlagName: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// `bluedot run`'s flags: every setting.
enum EverySetting: SettingSelection {
    static var keys: Set<String>? { nil }
}
