#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LocationDisplay
import BlueDotCore

/// Runs Tools/virtual-world/world.py (a Bumble controller with beacons around a fixed receiver) for one test.
final class BumbleWorld: Sendable {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// The package root, three levels above this file (symbolic links resolved: Tools/tsan builds this file
    /// through a link).
    static let packageRoot = URL(filePath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `BLUEDOT_PYTHON`, else `.venv/bin/python` under the package root, when executable.
    static var python: String? {
        let path = ProcessInfo.processInfo.environment["BLUEDOT_PYTHON"]
            ?? packageRoot.appending(path: ".venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// Run when Python is there, or when BLUEDOT_REQUIRE_INTEGRATION=1 demands it (then a missing one fails).
    static var enabled: Bool {
        python != nil || ProcessInfo.processInfo.environment["BLUEDOT_REQUIRE_INTEGRATION"] == "1"
    }

    private let process: LockedValue<Process>
    /// The TCP port of the world's H4 endpoint.
    let port: UInt16

    /// Starts the world with a config file and waits up to `timeoutSeconds` for its ready line.
    init(config: String, timeoutSeconds: Double = 20) async throws {
        guard let python = Self.python else {
            throw Unavailable(description: "no Python with bumble: set BLUEDOT_PYTHON or create .venv")
        }
        let process = Process()
        process.executableURL = URL(filePath: python)
        process.arguments = [Self.packageRoot.appending(path: "Tools/virtual-world/world.py").path,
                             "--config", config, "--seed", "1"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let reader = output.fileHandleForReading
        let line: Data? = try await withThrowingTaskGroup(of: Data?.self) { group in
            group.addTask {
                // Blocking reads on a detached thread until the first newline or end of file.
                await Task.detached {
                    var line = Data()
                    while true {
                        let chunk = reader.availableData
                        if chunk.isEmpty { return nil }
                        line.append(chunk)
                        if let newline = line.firstIndex(of: 0x0A) { return line[..<newline] }
                    }
                }.value
            }
            group.addTask {
                try await Task.sleep(for: .seconds(timeoutSeconds))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        struct Ready: Decodable { var ready: Bool; var port: UInt16 }
        guard let line, let ready = try? JSONDecoder().decode(Ready.self, from: line), ready.ready else {
            // SIGKILL: a world that never got as far as its ready line may not have unblocked SIGTERM yet.
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            throw Unavailable(description: "world.py did not print its ready line within \(timeoutSeconds) s")
        }
        port = ready.port
        self.process = LockedValue(process)
    }

    /// SIGTERM, then SIGKILL after two seconds; reaps the process.
    func stop() {
        process.withLock { process in
            guard process.isRunning else { return }
            process.terminate()
            let deadline = Date().addingTimeInterval(2)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }
}
