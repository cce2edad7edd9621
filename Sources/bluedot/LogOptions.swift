import ArgumentParser
import Logging

/// Logging to standard error, with a level.
struct LogOptions: ParsableArguments {
    @Option(help: "Log level on stderr: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
    }

    /// Bootstraps swift-log to stderr (once per process) and returns a logger for `label`.
    func makeLogger(_ label: String) -> Logger {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { name in
            var handler = StreamLogHandler.standardError(label: name)
            handler.logLevel = level
            return handler
        }
        return Logger(label: label)
    }
}
