import Foundation
import Testing

/// A real Eclipse Mosquitto broker (Debian's `mosquitto`) for one test: a generated configuration listening on a
/// free loopback port (or a given address), no persistence, started and stopped by the test. `restart()` brings it
/// back on the same port, as a broker restarted by its operator.
final class MosquittoBroker: @unchecked Sendable {
    /// The broker binary, nil when not installed.
    static let executable: String? = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Whether broker tests run: the broker is installed, or its absence must fail them (BLUEDOT_REQUIRE_TOOLS=1).
    static let available = executable != nil || IntegrationEnvironment.toolsRequired

    let host: String
    let port: Int
    let directory: URL
    private(set) var child: ChildProcess?

    /// `mqtt://host:port`.
    var url: String { "mqtt://\(host):\(port)" }

    /// Starts a broker on `host` (default loopback) and a free port; waits until it accepts connections.
    init(host: String = "127.0.0.1", port: Int? = nil, extraConfiguration: String = "") async throws {
        guard let executable = Self.executable else {
            throw BrokerError("mosquitto is not installed (apt install mosquitto mosquitto-clients)")
        }
        self.host = host
        self.port = try port ?? Self.freePort()
        let directory = try IntegrationEnvironment.scratchDirectory()
        self.directory = directory
        let configuration = """
            listener \(self.port) \(host)
            allow_anonymous true
            persistence false
            log_dest stderr
            log_type error
            log_type warning
            log_type notice
            \(extraConfiguration)
            """
        try configuration.write(to: directory.appendingPathComponent("mosquitto.conf"), atomically: true, encoding: .utf8)
        _ = executable
        try await start()
    }

    deinit { child?.kill() }

    /// Starts (or restarts) the process and waits for the port.
    func start() async throws {
        let executable = Self.executable ?? "mosquitto"
        let child = try ChildProcess(executable, ["-c", directory.appendingPathComponent("mosquitto.conf").path])
        self.child = child
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if Self.accepts(host: host, port: port) { return }
            if !child.isRunning { throw BrokerError("mosquitto exited: \(child.standardError)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw BrokerError("mosquitto did not listen on \(host):\(port) within 10 s")
    }

    /// Kills the broker at once (no goodbye to clients: their last wills fire).
    func kill() {
        child?.kill()
        _ = child?.waitSync(timeout: .seconds(5))
    }

    /// Kills and starts the broker again on the same port.
    func restart() async throws {
        kill()
        try await start()
    }

    /// Runs `mosquitto_pub` with `arguments` against this broker.
    func publish(_ arguments: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run(IntegrationEnvironment.which("mosquitto_pub") ?? "/usr/bin/mosquitto_pub",
                             ["-h", host, "-p", "\(port)"] + arguments, timeout: .seconds(10))
    }

    /// Runs `mosquitto_sub` for up to `count` messages of `topic` (with retained ones), `-v` style lines.
    func subscribe(_ topic: String, count: Int, timeoutSeconds: Int = 5) throws -> [String] {
        let result = try ChildProcess.run(
            IntegrationEnvironment.which("mosquitto_sub") ?? "/usr/bin/mosquitto_sub",
            ["-h", host, "-p", "\(port)", "-t", topic, "-v", "-C", "\(count)", "-W", "\(timeoutSeconds)"],
            timeout: .seconds(timeoutSeconds + 5))
        return result.standardOutput.split(separator: "\n").map(String.init)
    }

    /// A port nobody listens on now (bound to 0 and released).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BrokerError("socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw BrokerError("bind failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether a TCP connection to host:port succeeds now.
    static func accepts(host: String, port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

struct BrokerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Waits (polling every 20 ms, at most `seconds`) until `condition` holds; true when it did.
func eventually(seconds: Double = 10, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
