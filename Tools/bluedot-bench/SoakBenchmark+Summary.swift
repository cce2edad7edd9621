import Foundation

extension SoakBenchmark {
    /// Resident memory counts as flat below this slope, MiB per hour.
    static let flatSlopeMiBPerHour = 1.0

    /// Prints the figures and the verdicts, writes the JSON summary; true when every check passed.
    static func summarize(
        _ o: Options, outcome: Outcome, report: SoakReport, arrivals: SoakArrivals, start: Double,
        running: (solver: Bool, receiver: Bool), endings: (solver: String, receiver: String), receiverStopped: String,
        finalMetrics: [String: Double], decode: (ending: String, sightings: Int, lines: [String]), scratch: URL,
        machines: ([String: Any], [String: Any])
    ) -> Bool {
        var failures: [String] = []
        func fail(_ reason: String) {
            failures.append(reason)
            say("FAILED: \(reason)")
        }
        say("\nsoak summary (\(String(format: "%g", o.minutes)) min, warm-up \(Int(o.warmup)) s; machine: \(machines.1["cores"] ?? "?") cores, load \(machines.0["loadAverage"] ?? "?") at start, \(machines.1["loadAverage"] ?? "?") at end)")

        // Crashes and stops.
        if let crash = outcome.crash { fail("a process ended during the soak: \(crash)") }
        say("processes at the end: solver \(running.solver ? "running" : "GONE"), receiver \(running.receiver ? "running" : "GONE"); after SIGTERM: solver \(endings.solver), receiver \(endings.receiver)")
        say("  \(receiverStopped)")
        if !running.solver || !running.receiver { fail("a BlueDot process was not running at the end") }
        if endings.solver != "exit 0" || endings.receiver != "exit 0" { fail("an exit status after SIGTERM was not 0") }

        // Memory.
        say("solver resident memory: \(report.memorySolver.line)")
        say("  of which anonymous: \(report.anonymousSolver.line)")
        say("receiver resident memory: \(report.memoryReceiver.line)")
        say("  of which anonymous: \(report.anonymousReceiver.line)")
        for (name, memory) in [("solver", report.memorySolver), ("receiver", report.memoryReceiver)]
        where memory.slopeMiBPerHour > flatSlopeMiBPerHour {
            fail(String(format: "the %@'s resident memory grows by %.2f MiB/h (flat: under %.1f)", name,
                        memory.slopeMiBPerHour, flatSlopeMiBPerHour))
        }

        // Recoveries.
        say("broker restarts -> solver's next fix: \(report.brokerToFix.line)")
        say("broker restarts -> receiver's next batch: \(report.brokerToBatch.line)")
        say("controller restarts -> receiver's next batch with sightings: \(report.worldToBatch.line)")
        for (name, recovery) in [("a broker restart (solver's fix)", report.brokerToFix),
                                 ("a broker restart (receiver's batch)", report.brokerToBatch),
                                 ("a controller restart", report.worldToBatch)] where recovery.over > 0 {
            fail("\(recovery.over) of \(recovery.times.count) recoveries from \(name) took over \(Int(o.limit)) s")
        }

        // Rates.
        let samples = outcome.samples.filter { !$0.metrics.isEmpty }
        let warmed = samples.first { $0.t >= o.warmup }
        let last = samples.last
        var readRate = 0.0
        if let warmed, let last, last.t > warmed.t {
            readRate = (last.metric("bluedot_site_sightings_total") - warmed.metric("bluedot_site_sightings_total"))
                / (last.t - warmed.t)
        }
        let cpu = warmed.flatMap { w in last.map { ($0.solverCPU - w.solverCPU) / max($0.t - w.t, 1) } } ?? 0
        let receiverSightings = arrivals.batchSightings
        let read = finalMetrics["bluedot_site_sightings_total"] ?? 0
        say(String(format: "sightings: %d synthetic published (%d dropped while the broker was down), %d from the receiver; solver read %.0f (%.2f%%), %.0f/s after the warm-up (target %.0f/s), at %.3f cores",
                     outcome.published, outcome.dropped, receiverSightings, read,
                     100 * read / Double(max(1, outcome.published + receiverSightings)), readRate, o.rate, cpu))
        let late = finalMetrics["bluedot_site_late_sightings_total"] ?? 0
        let lateReceiver = finalMetrics.filter {
            $0.key.hasPrefix("bluedot_site_receiver_late_sightings_total{") && $0.key.contains("\"\(receiverID)\"")
        }.values.reduce(0, +)
        let unknown = finalMetrics["bluedot_site_unknown_receiver_sightings_total"] ?? 0
        say(String(format: "  late %.0f (%.0f of them the receiver's), from unknown receivers %.0f, fixes published %.0f",
                     late, lateReceiver, unknown, finalMetrics["bluedot_site_locations_published_total"] ?? 0))
        let delivered = read / Double(max(1, outcome.published + receiverSightings))
        if delivered < 0.98 {
            fail(String(format: "the solver read %.1f%% of the sightings published (under 98%%)", 100 * delivered))
        }
        if unknown > 0 { fail("the solver counted sightings of unknown receivers") }
        // Steady state: after the warm-up, and not in the 10 s after a broker restart (fixes of the grid points
        // missed while the link was down come out then).
        let restarts = outcome.brokerRestarts.map { start + $0.back }
        let lags = arrivals.allFixes.filter { fix in
            fix.arrived - start >= o.warmup && !restarts.contains { fix.arrived >= $0 && fix.arrived < $0 + 10 }
        }.map { $0.arrived - $0.t - o.window }.sorted()
        if !lags.isEmpty {
            say(String(format: "fix arrival beyond the %.1f s window, after the warm-up and outside the 10 s after each broker restart: p50 %.0f ms, p99 %.0f ms, max %.0f ms (%d fixes)",
                         o.window, 1000 * GatewayBenchmark.percentile(lags, 0.5), 1000 * GatewayBenchmark.percentile(lags, 0.99),
                         1000 * (lags.last ?? 0), lags.count))
        }

        // The recording.
        say("bluedot decode \(scratch.appendingPathComponent("receiver.btsnoop").path): \(decode.ending), \(decode.sightings) sightings")
        let noted = decode.lines.filter { $0.contains("malformed") || $0.contains("stopped early") }
        for line in noted { say("  \(line)") }
        if decode.ending != "exit 0" || decode.sightings == 0 { fail("the recording did not decode") }
        if decode.lines.contains(where: { $0.contains("stopped early") }) { fail("the recording stopped early") }
        if decode.lines.contains(where: { $0.range(of: #"malformed [1-9]"#, options: .regularExpression) != nil }) {
            fail("the recording has malformed reports")
        }

        let summary: [String: Any] = [
            "date": ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: start)),
            "machine": ["atStart": machines.0, "atEnd": machines.1],
            "options": [
                "minutes": o.minutes, "sightingsPerSecond": o.rate, "tags": o.tags, "syntheticReceivers": o.receivers,
                "brokerIntervalSeconds": o.brokerInterval, "brokerDownSeconds": o.brokerDown,
                "controllerIntervalSeconds": o.worldInterval, "controllerDownSeconds": o.worldDown,
                "sampleSeconds": o.sample, "warmupSeconds": o.warmup, "reorderWindowSeconds": o.window,
                "recoveryLimitSeconds": o.limit,
            ] as [String: Any],
            "passed": failures.isEmpty,
            "failures": failures,
            "crash": outcome.crash ?? NSNull(),
            "processes": [
                "solver": ["runningAtEnd": running.solver, "afterSIGTERM": endings.solver],
                "receiver": ["runningAtEnd": running.receiver, "afterSIGTERM": endings.receiver, "stopped": receiverStopped],
            ],
            "memory": ["solver": report.memorySolver.json, "receiver": report.memoryReceiver.json,
                       "solverAnonymous": report.anonymousSolver.json,
                       "receiverAnonymous": report.anonymousReceiver.json, "flatBelowMiBPerHour": flatSlopeMiBPerHour],
            "recovery": ["brokerToSolverFix": report.brokerToFix.json, "brokerToReceiverBatch": report.brokerToBatch.json,
                         "controllerToReceiverBatch": report.worldToBatch.json],
            "brokerRestarts": outcome.brokerRestarts.map { ["killed": $0.killed, "back": $0.back] },
            "controllerRestarts": outcome.worldRestarts.map { ["killed": $0.killed, "back": $0.back] },
            "sightings": [
                "syntheticPublished": outcome.published, "syntheticDropped": outcome.dropped,
                "receiverPublished": receiverSightings, "solverRead": read, "solverReadPerSecondAfterWarmup": readRate,
                "solverReadShareOfPublished": delivered,
                "late": late, "lateReceiver": lateReceiver, "unknownReceiver": unknown, "solverCores": cpu,
                "fixesPublished": finalMetrics["bluedot_site_locations_published_total"] ?? 0,
            ] as [String: Any],
            "fixLagBeyondWindowSeconds": lags.isEmpty ? NSNull() : [
                "p50": GatewayBenchmark.percentile(lags, 0.5), "p99": GatewayBenchmark.percentile(lags, 0.99),
                "max": lags.last ?? 0, "fixes": lags.count,
            ] as [String: Any],
            "decode": ["ending": decode.ending, "sightings": decode.sightings, "stderr": decode.lines],
            "samples": outcome.samples.map {
                ["t": $0.t, "solverKiB": $0.solverKiB, "receiverKiB": $0.receiverKiB,
                 "solverAnonKiB": $0.solverAnonKiB, "receiverAnonKiB": $0.receiverAnonKiB, "solverCPU": $0.solverCPU,
                 "receiverCPU": $0.receiverCPU, "sightingsRead": $0.metric("bluedot_site_sightings_total"),
                 "late": $0.metric("bluedot_site_late_sightings_total")]
            },
        ]
        let path = o.summary ?? scratch.appendingPathComponent("soak-summary.json").path
        do {
            let data = try JSONSerialization.data(withJSONObject: summary, options: [.prettyPrinted, .sortedKeys])
            try data.write(to: URL(fileURLWithPath: path))
        } catch {
            say("could not write \(path): \(error)")
        }
        say(failures.isEmpty ? "soak passed; summary in \(path)" : "soak FAILED (\(failures.count)); summary in \(path)")
        return failures.isEmpty
    }
}
