import Foundation

/// A child process whose output goes to files (no pipe can fill up), waited for with a bound and always killed.
final class ChildProcess: @unchecked Sendable {
    /// What a finished process left.
    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    let process = Process()
    let outputURL: URL
    let errorURL: URL
    let description: String

    /// Starts `executable` with `arguments`; output goes to files in a scratch directory.
    init(_ executable: String, _ arguments: [String], directory: String? = nil) throws {
        let scratch = try IntegrationEnvironment.scratchDirectory()
        outputURL = scratch.appendingPathComponent("stdout")
        errorURL = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        description = ([executable] + arguments).joined(separator: " ")
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        // A daemon's default history goes to its own scratch folder, never the user's state directory.
        var environment = ProcessInfo.processInfo.environment
        environment["STATE_DIRECTORY"] = scratch.path
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit { kill() }

    /// Runs a command to completion (killed after `timeout`).
    static func run(
        _ executable: String, _ arguments: [String], directory: String? = nil, timeout: Duration
    ) throws -> Result {
        let child = try ChildProcess(executable, arguments, directory: directory)
        let finished = child.waitSync(timeout: timeout)
        if !finished { child.kill() }
        return child.result
    }

    var standardOutput: String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }
    var standardError: String { (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "" }
    var isRunning: Bool { process.isRunning }

    /// The exit status (after it ended) and output so far.
    var result: Result {
        Result(status: process.isRunning ? -1 : process.terminationStatus, standardOutput: standardOutput,
               standardError: standardError)
    }

    /// Sends a signal.
    func signal(_ number: Int32) {
        if process.isRunning { Foundation.kill(process.processIdentifier, number) }
    }

    /// SIGKILL if still running, then reaps.
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Waits for the process to end, at most `timeout`; returns whether it ended.
    func wait(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if !process.isRunning { process.waitUntilExit() }
        return !process.isRunning
    }

    func waitSync(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if !process.isRunning { process.waitUntilExit() }
        return !process.isRunning
    }

    /// Waits until `condition` holds on the output so far, at most `timeout`; returns whether it did.
    func waitForOutput(timeout: Duration, _ condition: (String) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(standardOutput) { return true }
            if !process.isRunning { return condition(standardOutput) }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition(standardOutput)
    }

    /// The body `curl` gets from `url` (empty when nothing answered within 5 s).
    static func get(_ url: String) throws -> String {
        try run("/usr/bin/env", ["curl", "-s", "--max-time", "5", url], timeout: .seconds(10)).standardOutput
    }

    /// The web address a `bluedot run` logged it listens on (`http://127.0.0.1:N/`), waiting at most `timeout`; nil
    /// when none came.
    func listeningBase(timeout: Duration) async -> String? {
        var base: String?
        _ = await waitForOutput(timeout: timeout) { _ in
            let log = standardError
            guard let range = log.range(of: #"http://127\.0\.0\.1:[0-9]+/"#, options: .regularExpression) else {
                return false
            }
            base = String(log[range])
            return true
        }
        return base
    }

    /// The JSON object of the first line of output (a virtual world's ready line), waiting at most `timeout`; nil
    /// when none came.
    func readyObject(timeout: Duration) async -> [String: Any]? {
        var ready: [String: Any]?
        _ = await waitForOutput(timeout: timeout) { text in
            guard let line = text.split(separator: "\n").first,
                  let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return false }
            ready = object
            return true
        }
        return ready
    }
}
