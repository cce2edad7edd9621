import Foundation
import Positioning

/// `bluedot-bench gateway`: the daemon under load. Writes a tag-mode site (1,000 receivers on a 5 m grid, 500
/// tags walking at random, each heard by its 6 nearest receivers at `--rate` Hz per link, seeded), runs
/// `bluedot run --observations` on it at real time, holds a push-feed connection open like a browser, and
/// after a warm-up measures for `--seconds`: resident memory (VmRSS, peak of 1 s samples, with its anonymous and
/// file-backed parts), CPU (utime+stime
/// from /proc) per 1,000 advertising reports per second (from /metrics), and report-to-browser-event latency
/// (the feed's `reportedAt`, the wall time the daemon took in the newest report behind a fix, to the event's
/// arrival) p50/p99; also from the fix's own time, when its newest report was due (the replay hands reports over
/// up to one pacing quantum after that).
enum GatewayBenchmark {
    struct Options {
        var binary = ".build/release/bluedot"
        var anchors = 1000
        var tags = 500
        var seconds = 30.0
        var warmup = 10.0
        var rateHz = 1.0
        var seed: UInt64 = 7
        /// More flags for the daemon (`--option --no-self-calibration`), each given once per option.
        var options: [String] = []
    }

    static func run(_ arguments: [String]) async {
        var o = Options()
        var i = 0
        while i + 1 < arguments.count {
            let value = arguments[i + 1]
            switch arguments[i] {
            case "--binary": o.binary = value
            case "--anchors": o.anchors = Int(value) ?? o.anchors
            case "--tags": o.tags = Int(value) ?? o.tags
            case "--seconds": o.seconds = Double(value) ?? o.seconds
            case "--warmup": o.warmup = Double(value) ?? o.warmup
            case "--rate": o.rateHz = Double(value) ?? o.rateHz
            case "--seed": o.seed = UInt64(value) ?? o.seed
            case "--option": o.options.append(value)
            default: fail("unknown option \(arguments[i])")
            }
            i += 2
        }
        do {
            try await measure(o)
        } catch {
            fail("\(error)")
        }
    }

    static func measure(_ o: Options) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bluedot-gwbench-\(o.seed)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (venuePath, observationsPath, count) = try GatewaySite.write(
            to: directory.path, anchors: o.anchors, tags: o.tags, seconds: o.warmup + o.seconds + 20, rateHz: o.rateHz,
            seed: o.seed)
        print("site: \(o.anchors) receivers, \(o.tags) tags, \(count) observations (\(observationsPath))")
        // The daemon keeps its history as a service does (a fresh file per run, not the user's state directory).
        let history = directory.appendingPathComponent("history.sqlite").path
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: history + suffix) }
        let gateway = Process()
        gateway.executableURL = URL(fileURLWithPath: o.binary)
        gateway.arguments = [
            "run", "--observations", observationsPath, "--venue", venuePath, "--mode", "tag", "--listen",
            "127.0.0.1:0", "--log-level", "notice", "--history", history, "--learned-calibration", "memory",
        ] + o.options
        let logPipe = Pipe()
        gateway.standardError = logPipe
        gateway.standardOutput = FileHandle.nullDevice
        try gateway.run()
        defer { gateway.end() }
        let base = try waitForURL(logPipe)
        let feed = FeedListener(url: base + "api/feed")
        try feed.start()
        defer { feed.stop() }
        try await Task.sleep(for: .seconds(o.warmup))
        let pid = gateway.processIdentifier
        let reports0 = try metric("bluedot_advertising_reports_total", base)
        let cpu0 = cpuSeconds(pid), wall0 = Date()
        feed.resetLatencies()
        var peakRSS = 0, peakAnon = 0, peakFile = 0
        while Date().timeIntervalSince(wall0) < o.seconds {
            try await Task.sleep(for: .seconds(1))
            peakRSS = max(peakRSS, residentKiB(pid))
            peakAnon = max(peakAnon, statusKiB(pid, field: "RssAnon"))
            peakFile = max(peakFile, statusKiB(pid, field: "RssFile"))
        }
        let wall = Date().timeIntervalSince(wall0)
        let cpu = cpuSeconds(pid) - cpu0
        let reports = try metric("bluedot_advertising_reports_total", base) - reports0
        let targets = try metric("bluedot_targets_tracked", base)
        let latencies = feed.latencies.sorted()
        let reportsPerSecond = reports / wall
        print(String(format: "resident memory: %.1f MiB peak (VmRSS, %d targets tracked)", Double(peakRSS) / 1024, Int(targets)))
        // VmRSS is the daemon's own memory (RssAnon) and the pages of code and libraries it touched (RssFile:
        // shared with other processes and given back by the kernel under pressure).
        print(String(format: "  of which its own memory %.1f MiB peak (RssAnon), code and libraries %.1f MiB (RssFile)",
                     Double(peakAnon) / 1024, Double(peakFile) / 1024))
        print(String(format: "reports: %.0f /s; CPU: %.3f cores; CPU per 1,000 reports/s: %.3f cores (%.1f%% of one core)",
                     reportsPerSecond, cpu / wall, cpu / wall / (reportsPerSecond / 1000), 100 * cpu / wall / (reportsPerSecond / 1000)))
        if latencies.isEmpty {
            print("report-to-browser-event latency: no events")
        } else {
            print(String(format: "report-to-browser-event latency: p50 %.1f ms, p99 %.1f ms (%d events)",
                         1000 * percentile(latencies, 0.5), 1000 * percentile(latencies, 0.99), latencies.count))
        }
        // The fix's time is written to the millisecond: these are good to half of one.
        let fromFixTime = feed.fixTimeLatencies.sorted()
        if !fromFixTime.isEmpty {
            print(String(format: "  from the fix's time (the replay's wait before hand-over included): p50 %.1f ms, p99 %.1f ms",
                         1000 * percentile(fromFixTime, 0.5), 1000 * percentile(fromFixTime, 0.99)))
        }
        gateway.terminate()
        gateway.waitUntilExit()
        print("gateway exit status after SIGTERM: \(gateway.terminationStatus)")
    }

    static func percentile(_ sorted: [Double], _ q: Double) -> Double {
        sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))]
    }

    static func waitForURL(_ pipe: Pipe) throws -> String {
        var text = ""
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let data = pipe.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: #"http://127\.0\.0\.1:[0-9]+/"#, options: .regularExpression) {
                let url = String(text[range])
                Thread.detachNewThread { while !pipe.fileHandleForReading.availableData.isEmpty {} }
                return url
            }
        }
        throw BenchError("the gateway did not start: \(text.suffix(2000))")
    }

    /// The body of GET `url` (curl, 10 s at most).
    static func get(_ url: String) throws -> Data {
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        curl.arguments = ["curl", "-s", "--max-time", "10", url]
        let pipe = Pipe()
        curl.standardOutput = pipe
        try curl.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        return data
    }

    static func metric(_ name: String, _ base: String) throws -> Double {
        let text = String(decoding: try get(base + "metrics"), as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + " ") }),
            let value = Double(line.split(separator: " ").last ?? "")
        else { throw BenchError("no \(name) in /metrics") }
        return value
    }

    /// utime + stime of `pid`, seconds (/proc/PID/stat fields 14 and 15, in clock ticks).
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// VmRSS of `pid`, KiB.
    static func residentKiB(_ pid: Int32) -> Int { statusKiB(pid, field: "VmRSS") }

    /// A KiB field of `/proc/<pid>/status` (`VmRSS`, `RssAnon`); 0 when the process is gone.
    static func statusKiB(_ pid: Int32, field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("bluedot-bench gateway: \(message)\n".utf8))
        exit(1)
    }
}
