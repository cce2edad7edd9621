import BlueDotCore
import Formats
import Foundation
import Logging
import Positioning
import Site

/// `bluedot-bench site`: a site's solver over a real mosquitto broker. Starts `mosquitto` on a free loopback port,
/// writes the gateway benchmark's synthetic site (`GatewaySite`: `--receivers` on a 5 m grid, `--tags` walking,
/// each heard by its 6 nearest receivers at `--rate` Hz per link), runs `bluedot run --mqtt ... --mode tag` as
/// the solver, and publishes the site's sightings in real time as the receivers would: per receiver, a batch
/// every 100 ms on `bluedot/bench/sightings/<receiver>` (one publishing connection for all receivers). After a
/// warm-up it measures for `--seconds`: the solver's CPU (utime + stime from /proc), peak resident memory, and
/// sighting-to-published-location latency beyond the reorder window (a subscriber to the location topics takes
/// arrival time minus the fix's `t`, the grid point it stands for, minus the window). With `--rates a,b,c` it runs
/// once per rate and says whether the solver kept up: lag in the last third no more than 1.5x the first third's,
/// and every sighting delivered.

enum SiteBenchmark {
    struct Options {
        var binary = ".build/release/bluedot"
        var receivers = 100
        var tags = 500
        var seconds = 30.0
        var warmup = 10.0
        var rates: [Double] = [1]
        var window = 0.3
        var seed: UInt64 = 7
        /// More flags for the solver (`--option --no-self-calibration`), each given once per option.
        var options: [String] = []
    }

    static func run(_ arguments: [String]) async {
        var o = Options()
        var i = 0
        while i + 1 < arguments.count {
            let value = arguments[i + 1]
            switch arguments[i] {
            case "--binary": o.binary = value
            case "--receivers": o.receivers = Int(value) ?? o.receivers
            case "--tags": o.tags = Int(value) ?? o.tags
            case "--seconds": o.seconds = Double(value) ?? o.seconds
            case "--warmup": o.warmup = Double(value) ?? o.warmup
            case "--rate", "--rates": o.rates = value.split(separator: ",").compactMap { Double($0) }
            case "--window": o.window = Double(value) ?? o.window
            case "--seed": o.seed = UInt64(value) ?? o.seed
            case "--option": o.options.append(value)
            default: GatewayBenchmark.fail("unknown option \(arguments[i])")
            }
            i += 2
        }
        for rate in o.rates {
            do {
                try await measure(o, rateHz: rate)
            } catch {
                FileHandle.standardError.write(Data("bluedot-bench site: \(error)\n".utf8))
                exit(1)
            }
        }
    }

    static func measure(_ o: Options, rateHz: Double) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bluedot-sitebench-\(o.seed)-\(rateHz)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let total = o.warmup + o.seconds + 2
        let (venuePath, observationsPath, count) = try GatewaySite.write(
            to: directory.path, anchors: o.receivers, tags: o.tags, seconds: total, rateHz: rateHz, seed: o.seed)
        var reader = try ObservationReader(path: observationsPath, options: .init(knownAnchors: nil))
        let observations = try reader.readAll().map(\.observation)
        print(String(format: "site: %d receivers, %d tags, %.0f sightings/s (%d in %.0f s)", o.receivers, o.tags,
                     Double(count) / total, count, total))

        // The broker.
        let broker = try SiteBroker(directory: directory)
        try broker.start()
        defer { broker.kill() }
        try await Task.sleep(for: .milliseconds(300))
        let url = broker.url

        // The solver.
        // The daemon keeps its history as a service does (a fresh file per run, not the user's state directory).
        let history = directory.appendingPathComponent("history.sqlite").path
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: history + suffix) }
        let solver = Process()
        solver.executableURL = URL(fileURLWithPath: o.binary)
        solver.arguments = solverArguments(url: url, site: "bench", venue: venuePath, window: o.window) + o.options
            + ["--history", history]
        let logPipe = Pipe()
        solver.standardError = logPipe
        solver.standardOutput = FileHandle.nullDevice
        try solver.run()
        defer { solver.end() }
        let base = try GatewayBenchmark.waitForURL(logPipe)

        // The watcher of published locations.
        let logger = Logger(label: "bench.site")
        var watcherOptions = try MQTTOptions(url: url)
        watcherOptions.clientID = "bench-watcher"
        let watcher = try MQTTClient(options: watcherOptions, logger: logger)
        try watcher.subscribe("bluedot/bench/locations/+")
        try watcher.start()
        let lags = LockedValue<[(at: Double, lag: Double)]>([])
        let window = o.window
        let watching = Task.detached {
            for await case .message(let m) in watcher.events where !m.retain {
                let now = SystemClock().now()
                if let t = fixTime(m.payload) { lags.withLock { $0.append((now, now - t - window)) } }
            }
        }
        var publisherOptions = try MQTTOptions(url: url)
        publisherOptions.clientID = "bench-receivers"
        let publisher = try MQTTClient(options: publisherOptions, logger: logger)
        try publisher.start()
        let connectBy = SystemClock().now() + 10
        while !publisher.isConnected || !watcher.isConnected {
            guard SystemClock().now() < connectBy else { throw BenchError("could not connect to the broker at \(url)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        print("connected; publishing for \(o.warmup + o.seconds) s")
        try await Task.sleep(for: .milliseconds(500))

        // Publish in real time: every 100 ms each receiver's sightings of the last 100 ms.
        let start = SystemClock().now() + 0.2
        let pid = solver.processIdentifier
        var feed = SiteFeed(site: "bench", publisher: publisher, whenDown: .wait)
        var next = 0
        var cpu0 = 0.0, wall0 = 0.0, peakRSS = 0, measuring = false, lastSample = 0.0
        let end = start + o.warmup + o.seconds
        var tick = start
        while tick < end {
            tick += 0.1
            try await SystemClock().sleep(until: tick)
            let now = SystemClock().now()
            var due: [Observation] = []
            while next < observations.count, start + observations[next].t <= now {
                var ob = observations[next]
                ob.t += start
                due.append(ob)
                next += 1
            }
            try await feed.publish(due, clock: now)
            if !measuring, now >= start + o.warmup {
                measuring = true
                cpu0 = GatewayBenchmark.cpuSeconds(pid)
                wall0 = now
                lags.withLock { $0.removeAll() }
            }
            if measuring, now - lastSample >= 1 {
                lastSample = now
                peakRSS = max(peakRSS, GatewayBenchmark.residentKiB(pid))
            }
        }
        let published = feed.published
        let wall = SystemClock().now() - wall0
        let cpu = GatewayBenchmark.cpuSeconds(pid) - cpu0
        try await Task.sleep(for: .seconds(1))
        let delivered = (try? GatewayBenchmark.metric("bluedot_site_sightings_total", base)) ?? 0
        let late = (try? GatewayBenchmark.metric("bluedot_site_late_sightings_total", base)) ?? 0
        let samples = lags.value
        let sorted = samples.map(\.lag).sorted()
        let rate = Double(published) / (SystemClock().now() - start)
        print(String(format: "rate %.1f Hz per link: %.0f sightings/s published; solver CPU %.3f cores (%.1f%% of a core per 3,000 sightings/s); resident %.1f MiB peak",
                     rateHz, rate, cpu / wall, 100 * cpu / wall / (rate / 3000), Double(peakRSS) / 1024))
        print(String(format: "  solver read %.0f of %d sightings published (%.0f late)", delivered, published, late))
        if let receivers = try? receiversSummary(base) { print("  " + receivers) }
        if sorted.isEmpty {
            print("  no locations published")
        } else {
            let third = samples.count / 3
            func median(_ xs: ArraySlice<(at: Double, lag: Double)>) -> Double {
                let s = xs.map(\.lag).sorted()
                return s.isEmpty ? 0 : s[s.count / 2]
            }
            let first = median(samples[..<third]), last = median(samples[(2 * third)...])
            let kept = last <= max(1.5 * first, first + 0.05) && delivered >= Double(published) * 0.99
            print(String(format: "  sighting → published location beyond the %.1f s window: p50 %.1f ms, p99 %.1f ms (%d fixes); lag first third %.1f ms, last third %.1f ms: %@",
                         o.window, 1000 * GatewayBenchmark.percentile(sorted, 0.5),
                         1000 * GatewayBenchmark.percentile(sorted, 0.99), sorted.count, 1000 * first, 1000 * last,
                         kept ? "kept up" : "FELL BEHIND"))
        }
        watching.cancel()
        publisher.stop()
        watcher.stop()
        solver.terminate()
        for _ in 0..<100 where solver.isRunning { try await Task.sleep(for: .milliseconds(50)) }
    }

    /// The spread of the solver's clock offsets and jitters over the receivers (`/api/receivers`).
    static func receiversSummary(_ base: String) throws -> String {
        let data = try GatewayBenchmark.get(base + "api/receivers")
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let receivers = object["receivers"] as? [[String: Any]] else { return "no receivers" }
        let offsets = receivers.compactMap { $0["clockOffset"] as? Double }.sorted()
        let jitters = receivers.compactMap { $0["clockJitter"] as? Double }.sorted()
        let late = receivers.compactMap { $0["late"] as? Int }.sorted()
        guard let o0 = offsets.first, let o1 = offsets.last, let j = jitters.last, let l = late.last else { return "-" }
        return String(format: "%d receivers: clock offsets %.1f ... %.1f ms, largest jitter %.1f ms, late per receiver up to %d",
                      receivers.count, 1000 * o0, 1000 * o1, 1000 * j, l)
    }

    /// `bluedot run` as a site's solver on `url`, listening on a free loopback port, logging notices.
    static func solverArguments(url: String, site: String, venue: String, window: Double) -> [String] {
        [
            "run", "--mqtt", url, "--site", site, "--venue", venue, "--mode", "tag", "--listen", "127.0.0.1:0",
            "--reorder-window", "\(window)", "--log-level", "notice", "--learned-calibration", "memory",
        ]
    }

    /// The `t` of a location-format object (`{"t": 123.456, ...`).
    static func fixTime(_ payload: [UInt8]) -> Double? {
        let text = String(decoding: payload.prefix(40), as: UTF8.self)
        guard text.hasPrefix("{\"t\": "), let comma = text.firstIndex(of: ",") else { return nil }
        return Double(text[text.index(text.startIndex, offsetBy: 6)..<comma])
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { throw BenchError("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
