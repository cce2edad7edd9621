import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `bluedot` (or other) child process for the service and browser tests: output to files, waited for with a
/// bound, killed when the test ends; plus the test environment (binary, Python, whether missing tools fail).
final class GatewayProcess: @unchecked Sendable {
    static let environment = ProcessInfo.processInfo.environment
    /// The package root (Tests/GatewayTests/<file> is three levels down).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// Python with selenium (and Bumble): BLUEDOT_PYTHON, else the project's .venv.
    static let python = environment["BLUEDOT_PYTHON"] ?? packageRoot.appendingPathComponent(".venv/bin/python").path
    /// Whether a missing Python, browser or Bumble fails the tests instead of skipping them.
    static let required = environment["BLUEDOT_REQUIRE_INTEGRATION"] == "1"

    /// The built `bluedot` beside the test bundle, else in the default build folder.
    static let bluedot: String = {
        let candidates = [
            Bundle.main.executableURL?.deletingLastPathComponent(), Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL, packageRoot.appendingPathComponent(".build/debug"),
        ].compactMap { $0?.appendingPathComponent("bluedot").path }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
    }()

    /// Why `python` cannot import `modules`, or nil when it can.
    static func pythonMissing(_ modules: [String]) async -> String? {
        guard FileManager.default.isExecutableFile(atPath: python) else { return "no Python at \(python)" }
        let probe = try? GatewayProcess(python, ["-c", "import " + modules.joined(separator: ", ")])
        guard let probe, await probe.wait(seconds: 60), probe.status == 0 else {
            return "\(python) cannot import \(modules.joined(separator: ", "))"
        }
        return nil
    }

    let process = Process()
    let outputURL: URL
    let errorURL: URL

    init(_ executable: String, _ arguments: [String]) throws {
        let scratch = try Self.scratch()
        outputURL = scratch.appendingPathComponent("stdout")
        errorURL = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        // At a lower priority (nice execs the program: same pid, signals reach it): the daemon, Bumble and
        // chromium must not starve the timing-sensitive suites running beside them in this process.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nice")
        process.arguments = ["-n", "15", executable] + arguments
        // A daemon's default history goes to its own scratch folder, never the user's state directory.
        var environment = ProcessInfo.processInfo.environment
        environment["STATE_DIRECTORY"] = scratch.path
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Still running when the test lets go of it: SIGTERM, and SIGKILL only after 10 s. A browser check ends on
    /// SIGTERM through its `finally` blocks, which quit chromium and stop what it started; SIGKILL would leave
    /// chromedriver, chromium, gpsfake and bluedot running without their parent.
    deinit {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// A new scratch folder.
    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bluedot-gw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    var standardOutput: String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }
    var standardError: String { (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "" }
    var status: Int32 { process.isRunning ? -1 : process.terminationStatus }

    func signal(_ number: Int32) { if process.isRunning { kill(process.processIdentifier, number) } }

    /// Waits for the exit, at most `seconds`, sleeping between looks (never blocks a thread of the concurrency
    /// pool, which other suites run on); returns whether it exited.
    func wait(seconds: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if !process.isRunning { process.waitUntilExit() }
        return !process.isRunning
    }

    /// Waits until stdout or stderr holds `http://HOST:PORT/` and returns that base URL.
    func waitForURL(seconds: Double) async -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let text = standardOutput + standardError
            if let range = text.range(of: #"http://127\.0\.0\.1:[1-9][0-9]*/"#, options: .regularExpression) {
                return String(text[range])
            }
            if !process.isRunning { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// GET `url`; the status and body.
    static func get(_ url: String, headers: [String: String] = [:]) async throws -> (Int, String) {
        var request = URLRequest(url: URL(string: url)!)
        request.timeoutInterval = 10
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }
}
