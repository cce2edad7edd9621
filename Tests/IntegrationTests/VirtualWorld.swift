import Foundation

/// The Bumble virtual world (Tools/virtual-world/world.py) as a child process: a controller on H4 over TCP and
/// beacons at positions from a JSON config.
final class VirtualWorld {
    let child: ChildProcess
    /// The TCP port the controller listens on (0 when it is on a pty).
    let port: Int
    /// The pty the controller is on, when started with `pty: true`.
    let ttyPath: String?
    /// The canonical ids the world advertises, in config order.
    let beaconIDs: [String]

    /// Starts the world on TCP `port` (0: a free one), or on a pty, and waits up to `timeout` for its ready line.
    init(port: Int = 0, features: String = "extended", pty: Bool = false, timeout: Duration = .seconds(30)) async throws {
        child = try ChildProcess(IntegrationEnvironment.python, [
            IntegrationEnvironment.worldScript, "--config", IntegrationEnvironment.worldConfig,
            "--features", features, "--noise", "0",
        ] + (pty ? ["--pty"] : ["--port", String(port)]))
        let ready = await child.waitForOutput(timeout: timeout) { $0.contains("\"ready\"") }
        guard ready,
              let line = child.standardOutput.split(separator: "\n").first(where: { $0.contains("\"ready\"") }),
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let ids = object["beacons"] as? [String],
              let port = (object["port"] as? NSNumber)?.intValue ?? (pty ? 0 : nil)
        else {
            let error = child.standardError
            child.kill()
            throw WorldError.notReady(error)
        }
        self.port = port
        ttyPath = object["pty"] as? String
        beaconIDs = ids
    }

    deinit { child.kill() }

    /// `127.0.0.1:PORT`.
    var endpoint: String { "127.0.0.1:\(port)" }

    /// Kills the world at once (its TCP connections drop).
    func kill() { child.kill() }

    /// Sends the world a signal: SIGUSR1 makes its controller stop reporting until a Reset (a stuck firmware).
    func signal(_ number: Int32) { child.signal(number) }
}

enum WorldError: Error, CustomStringConvertible {
    case notReady(String)

    var description: String {
        switch self {
        case let .notReady(error): "virtual world did not become ready: \(error.suffix(2000))"
        }
    }
}

/// One beacon of the world file with the RSSI the log-distance model gives at the receiver.
struct ExpectedBeacon {
    var frame: String
    var address: String
    var modelRSSI: Double

    /// Reads beacons.json: rssi(d) = measuredPower - 10 n log10(d), per-beacon overrides of the defaults.
    static func load(_ path: String) throws -> [ExpectedBeacon] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let root = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let receiver = root["receiver"] as! [String: Any]
        let defaults = root["defaults"] as! [String: Any]
        return (root["beacons"] as! [[String: Any]]).map { beacon in
            let dx = number(beacon["x"]) - number(receiver["x"])
            let dy = number(beacon["y"]) - number(receiver["y"])
            let dz = number(beacon["z"]) - number(receiver["z"])
            let d = max((dx * dx + dy * dy + dz * dz).squareRoot(), 0.1)
            let p0 = number(beacon["measuredPower"] ?? defaults["measuredPower"])
            let n = number(beacon["pathLossExponent"] ?? defaults["pathLossExponent"])
            return ExpectedBeacon(
                frame: beacon["frame"] as! String, address: beacon["address"] as! String,
                modelRSSI: p0 - 10 * n * log10(d))
        }
    }
}

/// A JSON number as a Double (JSONSerialization gives NSNumber); NaN when missing.
func number(_ value: Any?) -> Double {
    (value as? NSNumber)?.doubleValue ?? .nan
}

/// Parses `bluedot` JSON lines.
func sightingObjects(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { line in
        try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }
}
