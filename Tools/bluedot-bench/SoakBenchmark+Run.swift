import BlueDotCore
import Formats
import Foundation
import Logging
import Positioning
import Site

extension SoakBenchmark {
    /// Everything the run leaves for the summary.
    struct Outcome {
        var brokerRestarts: [SoakDisruption] = []
        var worldRestarts: [SoakDisruption] = []
        var crash: String?
        var published = 0
        var dropped = 0
        var samples: [SoakSample] = []
    }

    /// Runs the soak; true when every check passed.
    static func soak(_ o: Options) async throws -> Bool {
        let scratch = try scratchDirectory(o)
        let machineAtStart = machine()
        let rateHz = o.rate / Double(o.tags * 6)
        let generator = GatewaySite(anchors: o.receivers, tags: o.tags, rateHz: rateHz, seed: o.seed)
        var venue = generator.venue
        venue.anchors.append(Anchor(id: receiverID, x: 0, y: 0, z: 1))
        let venuePath = scratch.appendingPathComponent("soak.venue.json").path
        try VenueWriter.json(venue).write(toFile: venuePath, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["STATE_DIRECTORY"] = scratch.path
        say(String(format: "soak: %g min, %d synthetic receivers, %d tags, %.0f sightings/s (%.2f Hz per link); broker killed every %.0f s, controller every %.0f s; in %@",
                     o.minutes, o.receivers, o.tags, o.rate, rateHz, o.brokerInterval, o.worldInterval, scratch.path))

        let broker = try SiteBroker(directory: scratch)
        try await broker.startAndWait()
        defer { broker.kill() }
        var (world, worldPort) = try await startWorld(o, port: 0, generation: 0, scratch: scratch, environment: environment)
        defer { world.end() }
        let recording = scratch.appendingPathComponent("receiver.btsnoop").path
        let receiver = try SoakProcess(
            name: "receiver", executable: o.binary,
            arguments: ["run", "--h4-tcp", "127.0.0.1:\(worldPort)", "--publish", broker.url, "--site", site,
                        "--receiver", receiverID, "--record", recording, "--log-level", "notice"],
            environment: environment, outputPath: scratch.appendingPathComponent("receiver.out").path,
            logPath: scratch.appendingPathComponent("receiver.log").path)
        defer { receiver.end() }
        let solver = try SoakProcess(
            name: "solver", executable: o.binary,
            arguments: SiteBenchmark.solverArguments(url: broker.url, site: site, venue: venuePath, window: o.window)
                + o.solverOptions,
            environment: environment, outputPath: scratch.appendingPathComponent("solver.out").path,
            logPath: scratch.appendingPathComponent("solver.log").path)
        defer { solver.end() }
        guard let base = await solver.waitFor(#"http://127\.0\.0\.1:[0-9]+/"#, inLog: true, timeoutSeconds: 120) else {
            throw BenchError("the solver did not start: \(solver.logTail(20).joined(separator: "\n"))")
        }

        let arrivals = SoakArrivals()
        var generation = 0
        var watcher = try SoakWatcher(url: broker.url, site: site, receiver: receiverID, generation: generation,
                                      into: arrivals)
        var publisherOptions = try MQTTOptions(url: broker.url)
        publisherOptions.clientID = "soak-receivers"
        let publisher = try MQTTClient(options: publisherOptions, logger: Logger(label: "soak.receivers"))
        try publisher.start()
        let connectBy = SystemClock().now() + 10
        while !publisher.isConnected {
            guard SystemClock().now() < connectBy else { throw BenchError("could not connect to \(broker.url)") }
            try await Task.sleep(for: .milliseconds(20))
        }

        let start = SystemClock().now() + 0.2
        let end = start + o.seconds
        let publishing = Task.detached { await publish(generator, publisher: publisher, start: start, end: end) }
        let sampler = SoakSampler(solverPID: solver.pid, receiverPID: receiver.pid, base: base, start: start,
                                  end: end, interval: o.sample)
        let sampling = Task.detached { await sampler.run() }

        // Disruptions, none in the last 15 s (their recovery could not be seen).
        var outcome = Outcome()
        let lastDisruption = end - 15
        var brokerNext = start + o.brokerInterval, worldNext = start + o.worldInterval / 2
        var reported = (broker: 0, world: 0)
        while SystemClock().now() < end {
            if !solver.isRunning || !receiver.isRunning {
                let who = solver.isRunning ? receiver : solver
                let how = await who.ending(timeoutSeconds: 1) ?? "?"
                outcome.crash = String(format: "%@ ended (%@) %.0f s into the soak; its log ends:\n%@", who.name, how,
                                       SystemClock().now() - start, who.logTail(30).joined(separator: "\n"))
                break
            }
            reportRecoveries(outcome, arrivals: arrivals, start: start, reported: &reported, limit: o.limit)
            let now = SystemClock().now()
            if brokerNext <= lastDisruption, brokerNext <= now, brokerNext <= worldNext {
                watcher.stop()
                let killed = SystemClock().now()
                broker.kill()
                try await Task.sleep(for: .seconds(o.brokerDown))
                try await broker.startAndWait()
                let back = SystemClock().now()
                generation += 1
                watcher = try SoakWatcher(url: broker.url, site: site, receiver: receiverID, generation: generation,
                                          into: arrivals)
                outcome.brokerRestarts.append(SoakDisruption(killed: killed - start, back: back - start))
                brokerNext += o.brokerInterval
            } else if worldNext <= lastDisruption, worldNext <= now {
                let killed = SystemClock().now()
                world.signal(SIGKILL)
                _ = await world.ending(timeoutSeconds: 5)
                try await Task.sleep(for: .seconds(o.worldDown))
                (world, worldPort) = try await startWorld(o, port: worldPort, generation: outcome.worldRestarts.count + 1,
                                                          scratch: scratch, environment: environment)
                outcome.worldRestarts.append(SoakDisruption(killed: killed - start, back: SystemClock().now() - start))
                worldNext += o.worldInterval
            } else {
                let next = [brokerNext, worldNext].filter { $0 <= lastDisruption }.min() ?? end
                try await SystemClock().sleep(until: min(now + 1, next, end))
            }
        }
        (outcome.published, outcome.dropped) = await publishing.value
        outcome.samples = await sampling.value
        try await Task.sleep(for: .seconds(2))
        reportRecoveries(outcome, arrivals: arrivals, start: start, reported: &reported, limit: o.limit)

        // The end: still running? Then SIGTERM, the receiver first (it flushes and says offline), and the decode.
        var report = SoakReport(samples: outcome.samples, warmup: o.warmup, limit: o.limit)
        report.recoveries(broker: outcome.brokerRestarts, world: outcome.worldRestarts, arrivals: arrivals,
                          start: start)
        let running = (solver: solver.isRunning, receiver: receiver.isRunning)
        let finalMetrics = SoakSampler.metrics(base)
        receiver.signal(SIGTERM)
        let receiverEnding = await receiver.ending(timeoutSeconds: 15) ?? "still running 15 s after SIGTERM"
        solver.signal(SIGTERM)
        let solverEnding = await solver.ending(timeoutSeconds: 15) ?? "still running 15 s after SIGTERM"
        watcher.stop()
        publisher.stop()
        let receiverStopped = receiver.logTail(40).last { $0.contains("receiver stopped") } ?? "(no \"receiver stopped\" line)"
        let decode = try await decodeRecording(o, recording: recording, scratch: scratch,
                                                environment: environment)

        return summarize(
            o, outcome: outcome, report: report, arrivals: arrivals, start: start, running: running,
            endings: (solver: solverEnding, receiver: receiverEnding), receiverStopped: receiverStopped,
            finalMetrics: finalMetrics, decode: decode, scratch: scratch,
            machines: (machineAtStart, machine()))
    }

    /// The synthetic receivers: every 100 ms the site's sightings up to now, as batches; what comes while the
    /// broker is down is dropped. Returns the sightings published and dropped.
    static func publish(_ generator: GatewaySite, publisher: MQTTClient, start: Double,
                        end: Double) async -> (published: Int, dropped: Int) {
        var site = generator
        var feed = SiteFeed(site: Self.site, publisher: publisher, whenDown: .drop)
        var pending: [Observation] = []
        var tick = start
        while tick < end {
            tick += 0.1
            try? await SystemClock().sleep(until: tick)
            let now = SystemClock().now()
            while start + site.t <= now { pending += site.step() }
            let count = pending.prefix { start + $0.t <= now }.count
            let due = pending[..<count].map { o in
                var o = o
                o.t += start
                return o
            }
            pending.removeFirst(count)
            try? await feed.publish(due, clock: now)
        }
        return (feed.published, feed.dropped)
    }

    /// Prints each restart's recovery once it is seen (or 60 s have passed).
    static func reportRecoveries(_ outcome: Outcome, arrivals: SoakArrivals, start: Double,
                                 reported: inout (broker: Int, world: Int), limit: Double) {
        let now = SystemClock().now() - start
        func text(_ arrived: Double?, _ back: Double) -> String {
            guard let seconds = arrived.map({ $0 - start - back }) else { return "nothing within 60 s" }
            return String(format: "%.2f s", seconds) + (seconds > limit ? " (SLOW)" : "")
        }
        while reported.broker < outcome.brokerRestarts.count {
            let event = outcome.brokerRestarts[reported.broker]
            let fix = arrivals.firstFix(after: start + event.back)?.arrived
            let batch = arrivals.firstBatch(after: start + event.back)?.arrived
            guard (fix != nil && batch != nil) || now > event.back + 60 else { break }
            say(String(format: "[%5.0f s] broker restart %d (down %.2f s): solver's next fix %@, receiver's next batch %@",
                         event.killed, reported.broker + 1, event.back - event.killed, text(fix, event.back),
                         text(batch, event.back)))
            reported.broker += 1
        }
        while reported.world < outcome.worldRestarts.count {
            let event = outcome.worldRestarts[reported.world]
            let back = start + event.back
            let batch = arrivals.firstBatch(after: back) { $0.sightings > 0 && $0.newest >= back }?.arrived
            guard batch != nil || now > event.back + 60 else { break }
            say(String(format: "[%5.0f s] controller restart %d (down %.2f s): receiver's next batch with sightings %@",
                         event.killed, reported.world + 1, event.back - event.killed, text(batch, event.back)))
            reported.world += 1
        }
    }

    /// `bluedot decode` on the recording: exit status, sightings decoded (lines), the summary and any
    /// "stopped early" line.
    static func decodeRecording(_ o: Options, recording: String, scratch: URL,
                                environment: [String: String]) async throws -> (ending: String, sightings: Int, lines: [String]) {
        let decode = try SoakProcess(
            name: "decode", executable: o.binary, arguments: ["decode", recording], environment: environment,
            outputPath: scratch.appendingPathComponent("receiver.decoded.jsonl").path,
            logPath: scratch.appendingPathComponent("decode.log").path)
        let ending = await decode.ending(timeoutSeconds: 600) ?? "still running after 600 s"
        decode.end()
        let output = (try? Data(contentsOf: URL(fileURLWithPath: decode.outputPath))) ?? Data()
        let sightings = output.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        return (ending, sightings, decode.logTail(10))
    }
}
