import BlueDotCore
import Formats
import Foundation
import Logging
import Positioning
import Site

/// `bluedot-bench campus`: a campus view (`bluedot run --mqtt URL --sites +`) over a real mosquitto, fed as
/// `--sites` buildings' solvers would feed it through their bridges: each site's venue and `online` status
/// (retained), then every target's fix once per `--interval` seconds (a solver's default publishing rate, 1 Hz),
/// retained, QoS 0, spread evenly over each interval, on `bluedot/<site>/locations/<target>`. After a warm-up it
/// measures for `--seconds`: the view's CPU (utime + stime from /proc) and peak resident memory, and whether it took
/// every fix (`bluedot_campus_locations_total` against what was published).
///
/// `--bridge` measures, beside it, what a mosquitto bridge adds to a message's trip: a building broker bridged to the
/// campus broker with docs/site.md's bridge (`topic ... out`), probes published every 20 ms to the building broker
/// and, for comparison, straight to the campus broker, each timed from publishing to arrival at a subscriber of the
/// campus broker.
enum CampusBenchmark {
    struct Options {
        var binary = ".build/release/bluedot"
        var sites = 20
        var tags = 500
        var interval = 1.0
        var seconds = 30.0
        var warmup = 10.0
        var bridge = false
        var history = true
    }

    static func run(_ arguments: [String]) async throws {
        var o = Options()
        var i = 0
        while i < arguments.count {
            let value = i + 1 < arguments.count ? arguments[i + 1] : ""
            switch arguments[i] {
            case "--binary": o.binary = value
            case "--sites": o.sites = Int(value) ?? o.sites
            case "--tags": o.tags = Int(value) ?? o.tags
            case "--interval": o.interval = Double(value) ?? o.interval
            case "--seconds": o.seconds = Double(value) ?? o.seconds
            case "--warmup": o.warmup = Double(value) ?? o.warmup
            case "--no-history": o.history = false; i -= 1
            case "--bridge": o.bridge = true; i -= 1
            default: throw BenchError("unknown option \(arguments[i])")
            }
            i += 2
        }
        if o.bridge { try await bridgeLatency() }
        try await measure(o)
    }

    static func measure(_ o: Options) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bluedot-campusbench")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let broker = try SiteBroker(directory: directory)
        try await broker.startAndWait()
        defer { broker.kill() }
        let rate = Double(o.sites * o.tags) / o.interval
        print(String(format: "campus: %d sites of %d tags, a fix per tag every %.1f s: %.0f locations/s through one broker",
                     o.sites, o.tags, o.interval, rate))

        let history = directory.appendingPathComponent("history.sqlite").path
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: history + suffix) }
        let view = Process()
        view.executableURL = URL(fileURLWithPath: o.binary)
        view.arguments = ["run", "--mqtt", broker.url, "--sites", "+", "--listen", "127.0.0.1:0", "--log-level", "notice",
                          "--history", o.history ? history : "off"]
        let logPipe = Pipe()
        view.standardError = logPipe
        view.standardOutput = FileHandle.nullDevice
        try view.run()
        defer { view.end() }
        let base = try GatewayBenchmark.waitForURL(logPipe)

        var options = try MQTTOptions(url: broker.url)
        options.clientID = "bench-solvers"
        let publisher = try MQTTClient(options: options, logger: Logger(label: "bench.campus"))
        try publisher.start()
        let connectBy = SystemClock().now() + 10
        while !publisher.isConnected {
            guard SystemClock().now() < connectBy else { throw BenchError("could not connect to \(broker.url)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        for s in 0..<o.sites {
            let venue = Venue(name: "building \(s)", anchors: [
                Anchor(id: "rx-1", x: 0, y: 0), Anchor(id: "rx-2", x: 40, y: 0), Anchor(id: "rx-3", x: 40, y: 30),
            ])
            publisher.publish(MQTTMessage(topic: "bluedot/b\(s)/venue", text: VenueWriter.json(venue), qos: 1, retain: true))
            publisher.publish(MQTTMessage(topic: "bluedot/b\(s)/status", text: "online", qos: 1, retain: true))
        }

        // Every 50 ms, the slice of the targets due: each target once per interval, at its own phase.
        let total = o.sites * o.tags
        let step = 0.05
        let perStep = Double(total) * step / o.interval
        var published = 0, publishedTotal = 0, dropped = 0, carried = 0.0, cursor = 0
        let start = SystemClock().now()
        let end = start + o.warmup + o.seconds
        var tick = start, cpu0 = 0.0, brokerCPU0 = 0.0, wall0 = 0.0, measuring = false, peakRSS = 0, lastSample = 0.0
        let pid = view.processIdentifier
        let brokerPID = broker.process?.processIdentifier ?? 0
        while tick < end {
            tick += step
            try await SystemClock().sleep(until: tick)
            carried += perStep
            let now = SystemClock().now()
            while carried >= 1 {
                carried -= 1
                let s = cursor / o.tags, k = cursor % o.tags
                cursor = (cursor + 1) % total
                let phase = Double(k) * 0.37
                let fix = Location(timestamp: now, targetID: "b\(s)-tag-\(k)", x: 20 + 15 * cos(now / 20 + phase),
                                   y: 15 + 10 * sin(now / 20 + phase), floor: 0, horizontalAccuracyMeters: 2.5,
                                   speedMetersPerSecond: 0.7, courseDegrees: 90, anchorCount: 5, presence: .home)
                let message = MQTTMessage(topic: "bluedot/b\(s)/locations/b\(s)-tag-\(k)", text: LocationWriter.line(fix),
                                          retain: true)
                if publisher.publish(message) == .sent {
                    published += 1
                    publishedTotal += 1
                } else {
                    dropped += 1
                }
            }
            if !measuring, now >= start + o.warmup {
                measuring = true
                cpu0 = GatewayBenchmark.cpuSeconds(pid)
                brokerCPU0 = GatewayBenchmark.cpuSeconds(brokerPID)
                wall0 = now
                published = 0
            }
            if measuring, now - lastSample >= 1 {
                lastSample = now
                peakRSS = max(peakRSS, GatewayBenchmark.residentKiB(pid))
            }
        }
        let wall = SystemClock().now() - wall0
        let cpu = GatewayBenchmark.cpuSeconds(pid) - cpu0
        let brokerCPU = GatewayBenchmark.cpuSeconds(brokerPID) - brokerCPU0
        // The metrics are copied at the daemon's housekeeping: wait for them to catch up with what was sent.
        var taken = 0.0
        for _ in 0..<40 {
            try await Task.sleep(for: .milliseconds(500))
            taken = (try? GatewayBenchmark.metric("bluedot_campus_locations_total", base)) ?? 0
            if taken >= Double(publishedTotal) { break }
        }
        let health = (try? JSONSerialization.jsonObject(with: GatewayBenchmark.get(base + "api/health"))) as? [String: Any]
        print(String(format: "  view CPU %.3f cores (%.1f%% of a core per 1,000 locations/s); resident %.1f MiB peak",
                     cpu / wall, 100 * cpu / wall / (Double(published) / wall / 1000), Double(peakRSS) / 1024))
        print(String(format: "  mosquitto CPU %.3f cores (taking the fixes in and handing them to the view)", brokerCPU / wall))
        print(String(format: "  %.0f locations/s published while measuring; %d in all (%d not sent), %.0f taken by the view; "
                     + "%@ targets shown", Double(published) / wall, publishedTotal, dropped, taken,
                     "\(health?["targets"] ?? "?")"))
        publisher.stop()
        view.terminate()
        for _ in 0..<100 where view.isRunning { try await Task.sleep(for: .milliseconds(50)) }
    }

    /// What a bridge adds: probes through a bridged building broker and straight to the campus broker.
    static func bridgeLatency() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bluedot-campusbench-bridge")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let campus = try SiteBroker(directory: directory)
        try await campus.startAndWait()
        defer { campus.kill() }
        let buildingDirectory = directory.appendingPathComponent("building")
        try FileManager.default.createDirectory(at: buildingDirectory, withIntermediateDirectories: true)
        let building = try SiteBroker(directory: buildingDirectory, extra: """
            connection campus-b0
            address 127.0.0.1:\(campus.port)
            cleansession true
            topic bluedot/b0/locations/# out 0
            notifications true
            notification_topic bluedot/b0/bridge
            """)
        try await building.startAndWait()
        defer { building.kill() }
        let logger = Logger(label: "bench.bridge")
        func client(_ url: String, _ id: String) throws -> MQTTClient {
            var options = try MQTTOptions(url: url)
            options.clientID = id
            return try MQTTClient(options: options, logger: logger)
        }
        let watcher = try client(campus.url, "bench-watcher")
        try watcher.subscribe("bluedot/+/locations/+")
        try watcher.subscribe("bluedot/b0/bridge")
        let arrivals = LockedValue<[String: [Double]]>([:])
        let bridgeUp = LockedValue(false)
        let watching = Task.detached {
            for await case .message(let m) in watcher.events {
                let now = SystemClock().now()
                if m.topic.hasSuffix("/bridge") {
                    bridgeUp.withLock { $0 = m.payload == Array("1".utf8) }
                    continue
                }
                guard let sent = SiteBenchmark.fixTime(m.payload) else { continue }
                arrivals.withLock { $0[m.topic, default: []].append(now - sent) }
            }
        }
        try watcher.start()
        let viaBuilding = try client(building.url, "bench-building")
        let direct = try client(campus.url, "bench-direct")
        try viaBuilding.start()
        try direct.start()
        let connectBy = SystemClock().now() + 10
        while !(viaBuilding.isConnected && direct.isConnected && watcher.isConnected && bridgeUp.value) {
            guard SystemClock().now() < connectBy else { throw BenchError("the bridge did not come up") }
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(300))
        for _ in 0..<500 {
            let fix = Location(timestamp: SystemClock().now(), targetID: "probe", x: 1, y: 1, horizontalAccuracyMeters: 1)
            viaBuilding.publish(MQTTMessage(topic: "bluedot/b0/locations/probe", text: LocationWriter.line(fix)))
            let straight = Location(timestamp: SystemClock().now(), targetID: "probe", x: 1, y: 1, horizontalAccuracyMeters: 1)
            direct.publish(MQTTMessage(topic: "bluedot/direct/locations/probe", text: LocationWriter.line(straight)))
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(500))
        watching.cancel()
        for c in [viaBuilding, direct, watcher] { c.stop() }
        let got = arrivals.value
        let bridged = (got["bluedot/b0/locations/probe"] ?? []).sorted()
        let straight = (got["bluedot/direct/locations/probe"] ?? []).sorted()
        guard !bridged.isEmpty, !straight.isEmpty else { throw BenchError("no probe arrived") }
        func ms(_ xs: [Double], _ q: Double) -> Double { 1000 * GatewayBenchmark.percentile(xs, q) }
        print(String(format: "bridge: %d probes through a bridged building broker: p50 %.2f ms, p99 %.2f ms; %d straight "
                     + "to the campus broker: p50 %.2f ms, p99 %.2f ms; the bridge adds %.2f ms at the median",
                     bridged.count, ms(bridged, 0.5), ms(bridged, 0.99), straight.count, ms(straight, 0.5),
                     ms(straight, 0.99), ms(bridged, 0.5) - ms(straight, 0.5)))
    }
}
