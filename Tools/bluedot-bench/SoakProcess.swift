import Foundation

/// A child process of the soak whose standard output and error go to files in the scratch folder, so a run of
/// hours keeps every log line and never stalls on a full pipe. Standard output is this incarnation's alone (the
/// virtual world's ready line is looked for there); the log (standard error) is appended to across restarts.
final class SoakProcess {
    let name: String
    let process = Process()
    let outputPath: String
    let logPath: String

    /// Starts `executable` with `arguments` in `environment`.
    init(name: String, executable: String, arguments: [String], environment: [String: String],
         outputPath: String, logPath: String) throws {
        self.name = name
        self.outputPath = outputPath
        self.logPath = logPath
        let files = FileManager.default
        guard files.createFile(atPath: outputPath, contents: nil),
              files.fileExists(atPath: logPath) || files.createFile(atPath: logPath, contents: nil)
        else { throw BenchError("cannot create \(outputPath) or \(logPath)") }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer {
            try? output.close()
            try? log.close()
        }
        try log.seekToEnd()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = log
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// The first match of the regular expression `pattern` in the output (or the log), polled every 20 ms for up
    /// to `timeoutSeconds`; nil when the time is up or the process ended first.
    func waitFor(_ pattern: String, inLog: Bool = false, timeoutSeconds: Double) async -> String? {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            let text = (try? String(contentsOfFile: inLog ? logPath : outputPath, encoding: .utf8)) ?? ""
            if let range = text.range(of: pattern, options: .regularExpression) { return String(text[range]) }
            guard isRunning else { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Sends `signal` unless the process has ended.
    func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// SIGKILL unless the process has ended, and reaps it: how the soak leaves, on every way out.
    func end() {
        signal(SIGKILL)
        process.waitUntilExit()
    }

    /// How the process ended, after waiting up to `timeoutSeconds`: "exit N" or "signal N"; nil while it runs.
    func ending(timeoutSeconds: Double) async -> String? {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while isRunning, Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        guard !isRunning else { return nil }
        return process.terminationReason == .exit
            ? "exit \(process.terminationStatus)" : "signal \(process.terminationStatus)"
    }

    /// The last `count` lines of the log.
    func logTail(_ count: Int) -> [String] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(count).map(String.init)
    }
}
