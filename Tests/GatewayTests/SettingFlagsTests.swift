import ArgumentParser
import Foundation
import Gateway
import Testing

@testable import bluedot

/// The settings table seen from both sides: every row works the same as a flag of `bluedot run` and as a
/// configuration key, flags override the file, errors name the flag; and the golden help of `bluedot run`.
@Suite struct SettingFlagsTests {
    /// What a row that refines an earlier setting needs before it, as configuration lines.
    static let needs = ["user-channel": "hci = hci0", "baud": "h4-tty = /dev/ttyS0"]

    /// For each flag of each row: the flag with the row's example gives the same configuration as the key with
    /// that value in a file, and that configuration differs from the one before (the setting did something).
    @Test func everyFlagMeansItsKey() throws {
        for setting in GatewaySetting.all {
            let base = try ConfigurationFile.parse(Self.needs[setting.key] ?? "", file: "base.conf")
            for flag in setting.flags {
                let (arguments, value): ([String], String) = switch flag.form {
                case .value: (["--\(flag.name)", setting.example], setting.example)
                case .presence(let text): (["--\(flag.name)"], text)
                }
                var fromFlags = base
                try fromFlags.apply(RunCommand.parse(arguments).settings.given)
                let fromFile = try ConfigurationFile.parse("\(setting.key) = \"\(value)\"", file: "t.conf", base: base)
                #expect(fromFlags == fromFile, "\(arguments) and \(setting.key) = \(value)")
                #expect(fromFile != base, "\(setting.key) = \(value) changed nothing")
            }
        }
    }

    /// Only the broker password stays out of the flags (`ps` would show it); every other row has a flag.
    @Test func onlyThePasswordIsFileOnly() {
        #expect(GatewaySetting.all.filter(\.flags.isEmpty).map(\.key) == ["mqtt-password"])
        #expect(throws: (any Error).self) { try RunCommand.parse(["--mqtt-password", "secret"]) }
    }

    /// Keys and flags are unique across the table (a repeated one would shadow the other).
    @Test func keysAndFlagsAreUnique() {
        let keys = GatewaySetting.all.map(\.key)
        let flags = GatewaySetting.all.flatMap(\.flags).map(\.name)
        #expect(Set(keys).count == keys.count)
        #expect(Set(flags).count == flags.count)
    }

    /// The file first, then the flags over it; the environment's token only when neither gives one.
    @Test func flagsOverrideTheFileAndTheFileTheEnvironment() throws {
        let file = try scratchFile(
            "observations = o.jsonl\nvenue = file.json\nspeed = 2\ntoken = file-token-0123456789\n")
        let environment = ["BLUEDOT_TOKEN": "environment-token-0123"]
        let fileOnly = try RunCommand.parse(["--config", file]).gatewayConfiguration(environment: environment)
        #expect(fileOnly.venuePath == "file.json" && fileOnly.speed == 2 && fileOnly.token == "file-token-0123456789")
        let flags = try RunCommand.parse(["--config", file, "--venue", "flag.json", "--token", "flag-token-0123456789"])
            .gatewayConfiguration(environment: environment)
        #expect(flags.venuePath == "flag.json" && flags.speed == 2 && flags.token == "flag-token-0123456789")
        let noToken = try RunCommand.parse(["--observations", "o.jsonl", "--venue", "v.json"])
            .gatewayConfiguration(environment: environment)
        #expect(noToken.token == "environment-token-0123")
        #expect(noToken.history.store == .stateDirectory, "run's default history")
    }

    /// Errors name the flag (or the variable); the parser's own errors stay the parser's.
    @Test func goldenFlagErrors() throws {
        func error(_ arguments: [String], environment: [String: String] = [:]) -> String {
            do {
                _ = try RunCommand.parse(arguments).gatewayConfiguration(environment: environment)
                return "valid"
            } catch let error as ConfigurationError {
                return error.description
            } catch {
                return RunCommand.message(for: error)
            }
        }
        let source = ["--observations", "o.jsonl", "--venue", "v.json"]
        #expect(error(source + ["--speed", "fast"]) == "--speed: expected a number, got \"fast\"")
        #expect(error(source + ["--espresense-prefix", "a/#"])
            == "--espresense-prefix: espresense is true or a base topic without wildcards, got \"a/#\"")
        #expect(error(source + ["--baud", "9600"]) == "--baud: baud needs h4-tty before it")
        #expect(error(source + ["--listen", "0.0.0.0:8080"])
            == "flags: listen: 0.0.0.0:8080 is reachable from other machines: set a token, or insecure = true")
        #expect(error(source + ["--listen", "0.0.0.0:8080", "--insecure"]) == "valid")
        #expect(error(source, environment: ["BLUEDOT_TOKEN": "short"])
            == "flags: token: a token is at least 16 printable ASCII characters without spaces")
        #expect(error(["--hci", "hci0", "--h4-tcp", "127.0.0.1:1", "--venue", "v.json"])
            == "give only one of --hci, --h4-tcp, --h4-tty")
        #expect(error(source + ["--venu", "v.json"]) == "Unknown option '--venu'. Did you mean '--venue'?")
        #expect(error(source + ["--mode"]) == "Missing value for '--mode <mode>'")
    }

    /// Every key and every flag is in the reference (`docs/gateway.md`, and `docs/site.md` for the site's).
    @Test func everySettingIsDocumented() throws {
        let docs = GatewayProcess.packageRoot.appendingPathComponent("docs")
        let text = try ["gateway.md", "site.md"]
            .map { try String(contentsOf: docs.appendingPathComponent($0), encoding: .utf8) }.joined()
        for setting in GatewaySetting.all {
            #expect(text.contains("`\(setting.key)`"), "key \(setting.key)")
            for flag in setting.flags {
                #expect(text.contains("`--\(flag.name)"), "flag --\(flag.name)")
            }
        }
    }

    private func scratchFile(_ text: String) throws -> String {
        let path = try GatewayProcess.scratch().appendingPathComponent("run.conf").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
