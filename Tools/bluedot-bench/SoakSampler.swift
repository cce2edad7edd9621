import BlueDotCore
import Foundation

/// One look at the soak's BlueDot processes: resident memory and CPU time from /proc, and the solver's counters
/// from its `/metrics`.
struct SoakSample: Sendable {
    /// Seconds since the soak started.
    var t: Double
    /// VmRSS, KiB (0 when the process is gone).
    var solverKiB: Int
    var receiverKiB: Int
    /// Its anonymous part, RssAnon (the heap, stacks), KiB: VmRSS less the pages of mapped files.
    var solverAnonKiB: Int
    var receiverAnonKiB: Int
    /// utime + stime, seconds.
    var solverCPU: Double
    var receiverCPU: Double
    /// The solver's series (`bluedot_site_sightings_total` ...); empty when /metrics did not answer.
    var metrics: [String: Double]

    /// A counter, 0 when absent.
    func metric(_ name: String) -> Double { metrics[name] ?? 0 }
}

/// Samples the solver and the receiver every `interval` seconds from `start` until `end`, printing a line each
/// minute.
struct SoakSampler: Sendable {
    let solverPID: Int32
    let receiverPID: Int32
    let base: String
    let start: Double
    let end: Double
    let interval: Double

    func run() async -> [SoakSample] {
        var samples: [SoakSample] = []
        var next = start
        while next <= end + 0.001 {
            try? await SystemClock().sleep(until: next)
            let sample = take()
            samples.append(sample)
            if samples.count == 1 || Int(sample.t) % 60 < Int(interval) {
                let previous = samples.count > 1 ? samples[samples.count - 2] : sample
                let rate = sample.t > previous.t
                    ? (sample.metric("bluedot_site_sightings_total") - previous.metric("bluedot_site_sightings_total"))
                        / (sample.t - previous.t) : 0
                SoakBenchmark.say(String(format: "[%5.0f s] solver %.1f MiB, receiver %.1f MiB, solver reading %.0f sightings/s, %.0f targets, %.0f late",
                             sample.t, Double(sample.solverKiB) / 1024, Double(sample.receiverKiB) / 1024, rate,
                             sample.metric("bluedot_targets_tracked"), sample.metric("bluedot_site_late_sightings_total")))
            }
            next += interval
        }
        return samples
    }

    /// One sample now.
    func take() -> SoakSample {
        SoakSample(
            t: SystemClock().now() - start,
            solverKiB: GatewayBenchmark.residentKiB(solverPID), receiverKiB: GatewayBenchmark.residentKiB(receiverPID),
            solverAnonKiB: GatewayBenchmark.statusKiB(solverPID, field: "RssAnon"),
            receiverAnonKiB: GatewayBenchmark.statusKiB(receiverPID, field: "RssAnon"),
            solverCPU: GatewayBenchmark.cpuSeconds(solverPID), receiverCPU: GatewayBenchmark.cpuSeconds(receiverPID),
            metrics: Self.metrics(base))
    }

    /// Every series of the Prometheus text at `base`/metrics, by name with its labels as written
    /// (`bluedot_site_receiver_late_sightings_total{receiver="rx-soak"}`).
    static func metrics(_ base: String) -> [String: Double] {
        guard let data = try? GatewayBenchmark.get(base + "metrics") else { return [:] }
        var values: [String: Double] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            values[String(line[..<space])] = value
        }
        return values
    }
}
