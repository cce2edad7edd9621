import Foundation

/// Debian's mosquitto for the site benchmarks: a generated configuration listening on a loopback port (a free one
/// unless given), no persistence, a deep queue per client. `kill()` and `start()` bring it down with SIGKILL and
/// back on the same port, as an operator's restart after a crash: clients see their links drop, and nothing of
/// the old broker survives (no retained messages, no sessions).
final class SiteBroker {
    let port: Int
    let configuration: URL
    private(set) var process: Process?

    /// `mqtt://127.0.0.1:PORT`.
    var url: String { "mqtt://127.0.0.1:\(port)" }

    /// Writes `mosquitto.conf` into `directory`, with `extra` lines (a bridge) at its end; nothing runs until
    /// `start()`.
    init(directory: URL, port: Int? = nil, extra: String = "") throws {
        self.port = try port ?? SiteBenchmark.freePort()
        configuration = directory.appendingPathComponent("mosquitto.conf")
        try ("listener \(self.port) 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 100000\n"
            + extra + "\n").write(to: configuration, atomically: true, encoding: .utf8)
    }

    deinit { kill() }

    /// Starts the broker, its output discarded.
    func start() throws {
        let broker = Process()
        broker.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        broker.arguments = ["-c", configuration.path]
        broker.standardError = FileHandle.nullDevice
        broker.standardOutput = FileHandle.nullDevice
        try broker.run()
        process = broker
    }

    /// Starts the broker and waits, up to `timeoutSeconds`, until it accepts a TCP connection.
    func startAndWait(timeoutSeconds: Double = 10) async throws {
        try start()
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while !Self.accepts(port: port) {
            guard let process, process.isRunning else { throw BenchError("mosquitto exited at start (port \(port))") }
            guard Date() < deadline else { throw BenchError("mosquitto did not listen on port \(port)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// SIGKILL, then waits for the process to be gone (its port is free again).
    func kill() {
        guard let process, process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Whether a TCP connection to 127.0.0.1:`port` succeeds now.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
