import BlueDotCore
import Formats
import Foundation
import Logging
import Positioning
import Site

/// `bluedot-bench soak`: a site left running for `--minutes` while its broker and a receiver's controller are
/// killed under it. Parts: mosquitto on a free loopback port; the site benchmark's synthetic site (`GatewaySite`:
/// `--receivers` on a 5 m grid, `--tags` walking, `--rate` sightings/s in all) published in real time on one
/// MQTT connection that drops what comes while the broker is down; one real receiver, `bluedot run --h4-tcp ...
/// --publish ... --record`, fed by the Bumble virtual world (`Tools/virtual-world/world.py`); and the solver,
/// `bluedot run --mqtt ... --mode tag`, whose venue has the real receiver as one more anchor. Every BlueDot
/// process gets `STATE_DIRECTORY=<scratch>`, so the solver keeps its history in the scratch folder.
///
/// Every `--broker-interval` s the broker is killed (SIGKILL) and started again on the same port after
/// `--broker-down` s; every `--world-interval` s (half an interval out of phase, so the two never coincide with
/// the defaults) the world is killed and started again on the same TCP port after `--world-down` s. Measured:
/// both processes' VmRSS every `--sample` s (slope after the warm-up: 5 minutes, or the first sixth of a shorter
/// run), the solver's counters from /metrics, and, from a subscriber connected afresh as soon as the broker is
/// back, how long each restart took to recover: the solver's next published fix and the receiver's next batch
/// after a broker restart, the receiver's next batch with a sighting heard since, after a world restart. At the
/// end the receiver and the solver get SIGTERM, and `bluedot decode` reads the receiver's recording.
enum SoakBenchmark {
    struct Options {
        var binary = ".build/release/bluedot"
        var python = ".venv/bin/python"
        var world = "Tools/virtual-world/world.py"
        var worldConfig = "Tools/virtual-world/beacons.json"
        var minutes = 30.0
        var rate = 3000.0
        var tags = 500
        var receivers = 100
        var brokerInterval = 120.0
        var brokerDown = 1.0
        var worldInterval = 90.0
        var worldDown = 1.0
        var sample = 10.0
        var window = 0.3
        var limit = 5.0
        var scratch: String?
        var summary: String?
        var seed: UInt64 = 7
        /// More flags for the solver (`--solver-option --no-ha-discovery`), each given once per option.
        var solverOptions: [String] = []

        var seconds: Double { minutes * 60 }
        /// 5 minutes, or the first sixth of a shorter run.
        var warmup: Double { min(300, seconds / 6) }
    }

    static let site = "soak"
    static let receiverID = "rx-soak"

    static func run(_ arguments: [String]) async throws {
        var o = Options()
        var i = 0
        while i < arguments.count {
            guard i + 1 < arguments.count else { throw BenchError("\(arguments[i]) needs a value") }
            let value = arguments[i + 1]
            func number() throws -> Double {
                guard let x = Double(value), x >= 0 else { throw BenchError("\(arguments[i]): not a number: \(value)") }
                return x
            }
            switch arguments[i] {
            case "--binary": o.binary = value
            case "--python": o.python = value
            case "--world": o.world = value
            case "--world-config": o.worldConfig = value
            case "--minutes": o.minutes = try number()
            case "--rate": o.rate = try number()
            case "--tags": o.tags = Int(try number())
            case "--receivers": o.receivers = Int(try number())
            case "--broker-interval": o.brokerInterval = try number()
            case "--broker-down": o.brokerDown = try number()
            case "--world-interval": o.worldInterval = try number()
            case "--world-down": o.worldDown = try number()
            case "--sample": o.sample = try number()
            case "--window": o.window = try number()
            case "--limit": o.limit = try number()
            case "--scratch": o.scratch = value
            case "--summary": o.summary = value
            case "--seed": o.seed = UInt64(value) ?? o.seed
            case "--solver-option": o.solverOptions.append(value)
            default: throw BenchError("unknown option \(arguments[i])")
            }
            i += 2
        }
        guard o.tags > 0, o.receivers >= 6, o.rate > 0, o.minutes > 0, o.sample > 0 else {
            throw BenchError("--tags, --rate, --minutes and --sample must be positive, --receivers at least 6")
        }
        let passed = try await soak(o)
        if !passed { exit(1) }
    }

    /// The soak's folder: the venue, the logs, the recording, the history and the summary.
    static func scratchDirectory(_ o: Options) throws -> URL {
        let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
        let url = o.scratch.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("bluedot-soak-\(stamp)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The Bumble world on `port` (0: a free one); returns it and its port once it has printed its ready line.
    static func startWorld(_ o: Options, port: Int, generation: Int, scratch: URL,
                           environment: [String: String]) async throws -> (SoakProcess, Int) {
        let world = try SoakProcess(
            name: "world", executable: o.python,
            arguments: [o.world, "--config", o.worldConfig, "--port", "\(port)", "--seed", "\(generation)"],
            environment: environment, outputPath: scratch.appendingPathComponent("world.out").path,
            logPath: scratch.appendingPathComponent("world.log").path)
        guard let line = await world.waitFor(#"\{"ready".*\}"#, timeoutSeconds: 60),
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let ready = (object["port"] as? NSNumber)?.intValue
        else {
            world.end()
            throw BenchError("the virtual world did not start: \(world.logTail(20).joined(separator: "\n"))")
        }
        return (world, ready)
    }

    /// Prints a line at once (`fflush`), so a log file shows a run of half an hour as it goes.
    static func say(_ line: String) {
        print(line)
        fflush(nil)
    }

    /// The machine as the summary records it: cores and the load averages now.
    static func machine() -> [String: Any] {
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
            .joined(separator: " ") ?? "?"
        return ["cores": ProcessInfo.processInfo.activeProcessorCount, "loadAverage": load,
                "system": ProcessInfo.processInfo.operatingSystemVersionString]
    }
}
