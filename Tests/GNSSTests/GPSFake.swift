#if canImport(Glibc)
import Glibc
#endif
import BlueDotCore
import Foundation
import SystemIO

/// Debian's gpsd replaying one of gpsd's regression logs (Tools/gnss/logs) through `gpsfake`, on a port of its
/// own, and gpsd's `gpspipe -w` watching it: the real daemon the GNSS tests talk to.
///
/// gpsfake is run in pipe mode (`-p`): its own watching client makes gpsd open the fake device and holds the feed
/// back for 1.4 s, in which the test's clients connect. `-1` plays the log once and `-W 2` ends gpsfake 2 s after
/// the log ran out (its default waits 60 s); gpsfake then stops gpsd, which
/// closes every client's connection.
final class GPSFake: Sendable {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// gpsfake, when installed.
    static var gpsfake: String? { ["/usr/bin/gpsfake"].first { FileManager.default.isExecutableFile(atPath: $0) } }
    /// gpspipe, when installed.
    static var gpspipe: String? { ["/usr/bin/gpspipe"].first { FileManager.default.isExecutableFile(atPath: $0) } }

    /// Run when gpsd's tools are there, or when BLUEDOT_REQUIRE_INTEGRATION=1 demands it (CI: a missing one fails).
    static var enabled: Bool {
        (gpsfake != nil && gpspipe != nil) || ProcessInfo.processInfo.environment["BLUEDOT_REQUIRE_INTEGRATION"] == "1"
    }

    /// The path of a log in Tools/gnss/logs.
    static func log(_ name: String) -> String {
        packageRoot.appending(path: "Tools/gnss/logs/\(name)").path
    }

    private static let nextPort = LockedValue(UInt16(30_000 + getpid() % 20_000))

    /// Runs a program with every signal unblocked and SIGPIPE at its default: a child of the test process
    /// inherits its blocked signal mask (nearly all signals), under which gpsfake neither notices that its log ran
    /// out nor dies on SIGTERM. Python is there wherever gpsfake is (gpsfake is a Python program).
    static func unmasked(_ program: String, _ arguments: [String]) -> (String, [String]) {
        let exec = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, set()); "
            + "signal.signal(signal.SIGPIPE, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])"
        return ("/usr/bin/python3", ["-c", exec, program] + arguments)
    }

    /// A free-looking port for one replay.
    static func port() -> UInt16 {
        nextPort.withLock { port in
            port = port >= 64_000 ? 30_000 : port + 7
            return port
        }
    }

    let port: UInt16
    private let process: LockedValue<Process>

    /// Starts gpsfake on `log` at `port`, one sentence every `cycleSeconds`, and waits until gpsd listens.
    init(log: String, port: UInt16, cycleSeconds: Double = 0.05) async throws {
        guard let gpsfake = Self.gpsfake else {
            throw Unavailable(description: "gpsfake is missing: apt-get install gpsd gpsd-clients (Tools/dev setup)")
        }
        let process = Process()
        let (program, arguments) = Self.unmasked(
            gpsfake, ["-1", "-p", "-q", "-W", "2", "-c", "\(cycleSeconds)", "-P", "\(port)", log])
        process.executableURL = URL(filePath: program)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.port = port
        self.process = LockedValue(process)
        // Wait for gpsd's socket: connect and hang up until it answers (10 s at most).
        let probe = TCPByteStream(endpoint: TCPEndpoint(host: "127.0.0.1", port: port), connectTimeout: .seconds(1))
        for _ in 0..<200 {
            if (try? await probe.open()) != nil {
                await probe.close()
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        stop()
        throw Unavailable(description: "gpsfake's gpsd did not listen on port \(port) within 10 s")
    }

    /// Whether gpsfake still runs.
    var isRunning: Bool { process.withLock { $0.isRunning } }

    /// Waits until gpsfake has played its log and exited (at most `timeoutSeconds`).
    func waitForExit(timeoutSeconds: Double = 60) async {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while isRunning, Date() < deadline { try? await Task.sleep(for: .milliseconds(100)) }
    }

    /// SIGTERM; reaps the process.
    func stop() {
        process.withLock { process in
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

/// gpsd's `gpspipe -w` against a port: its JSON lines, written to a file until stopped.
final class GPSPipe: Sendable {
    private let process: LockedValue<Process>
    private let output: URL

    /// Starts `gpspipe -w 127.0.0.1:port`.
    init(port: UInt16) throws {
        guard let gpspipe = GPSFake.gpspipe else {
            throw GPSFake.Unavailable(description: "gpspipe is missing: apt-get install gpsd-clients (Tools/dev setup)")
        }
        output = FileManager.default.temporaryDirectory.appending(path: "gpspipe-\(getpid())-\(port).jsonl")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        // Line-buffered (coreutils' stdbuf): gpspipe does not exit when gpsd goes away, and what its stdio held
        // back would be lost when it is stopped.
        let (program, arguments) = GPSFake.unmasked("/usr/bin/stdbuf", ["-oL", gpspipe, "-w", "127.0.0.1:\(port)"])
        process.executableURL = URL(filePath: program)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = LockedValue(process)
    }

    /// Stops gpspipe (if gpsd's going away has not) and returns the lines it printed.
    func stop() -> [String] {
        end()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: output)
        // gpsd ends its lines with CR LF, one grapheme for `Character`: split the bytes.
        return text.utf8.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
    }

    /// SIGTERM unless it has ended; reaps it.
    private func end() {
        process.withLock { process in
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
    }

    /// A test that throws before `stop()` still ends gpspipe, which does not exit by itself when gpsd goes away.
    deinit { end() }
}
