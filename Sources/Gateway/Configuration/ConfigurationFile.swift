import BlueDotCore
import FoundationEssentials
import SystemIO

/// Reads the `key = value` configuration format: one setting per line, `#` starts a comment, blank lines are
/// ignored, values may be double-quoted (needed for a `#` or surrounding spaces). Each key is a row of
/// `GatewaySetting.all`, the same row that makes its flag of `bluedot run`, so a flag and its key always mean the
/// same thing.
public enum ConfigurationFile {
    /// Parses `text` (named `file` in errors) on top of `base`; errors carry `file:line`.
    public static func parse(
        _ text: String, file: String, base: GatewayConfiguration = GatewayConfiguration()
    ) throws(ConfigurationError) -> GatewayConfiguration {
        var configuration = base
        var seen: Set<String> = []
        var number = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let location = "\(file):\(number)"
            let line = stripComment(raw)
            if line.allSatisfy(\.isWhitespace) { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigurationError(location: location, reason: .syntax("expected key = value"))
            }
            let key = line[..<equals].trimmingBlanks()
            var value = line[line.index(after: equals)...].trimmingBlanks()
            guard !key.isEmpty else { throw ConfigurationError(location: location, reason: .syntax("missing key")) }
            if value.hasPrefix("\"") {
                guard value.count >= 2, value.hasSuffix("\"") else {
                    throw ConfigurationError(location: location, key: key, reason: .syntax("unterminated quote"))
                }
                value = String(value.dropFirst().dropLast())
            }
            guard seen.insert(key).inserted else {
                throw ConfigurationError(location: location, key: key, reason: .duplicateKey(key))
            }
            do {
                try GatewaySetting.apply(key: key, value: value, to: &configuration)
            } catch {
                throw ConfigurationError(location: location, key: key, reason: error)
            }
        }
        return configuration
    }

    /// Reads and parses the file at `path`.
    public static func load(
        path: String, base: GatewayConfiguration = GatewayConfiguration()
    ) throws(ConfigurationError) -> GatewayConfiguration {
        let data: [UInt8]
        do { data = try WholeFile.read(path) } catch {
            throw ConfigurationError(location: path, reason: .badValue("cannot read the file: \(error.reason)"))
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw ConfigurationError(location: path, reason: .badValue("not UTF-8 text"))
        }
        return try parse(text, file: path, base: base)
    }

    /// The line up to an unquoted `#`.
    private static func stripComment(_ line: Substring) -> Substring {
        var quoted = false
        for index in line.indices {
            switch line[index] {
            case "\"": quoted.toggle()
            case "#" where !quoted: return line[..<index]
            default: continue
            }
        }
        return line
    }
}
