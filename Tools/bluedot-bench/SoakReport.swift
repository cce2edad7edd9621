import Foundation

/// A broker restart or a virtual controller's restart: when it was killed and when it was back (the broker
/// accepting connections, the world's ready line), seconds since the soak started.
struct SoakDisruption: Sendable {
    var killed: Double
    var back: Double
}

/// The soak's figures from what was recorded: memory slopes, recovery times, rates, the stop and the decode;
/// printed and written as JSON.
struct SoakReport {
    /// Resident memory of one process over the run.
    struct Memory {
        var startMiB = 0.0, warmedMiB = 0.0, endMiB = 0.0, peakMiB = 0.0
        /// Least-squares slope of VmRSS against time over the samples after the warm-up, MiB per hour.
        var slopeMiBPerHour = 0.0
        /// The same over the run's second half only: near zero when what grew early was a cache filling up.
        var lateSlopeMiBPerHour = 0.0

        init(_ samples: [(t: Double, kib: Int)], warmup: Double) {
            let mib = samples.filter { $0.kib > 0 }.map { (t: $0.t, y: Double($0.kib) / 1024) }
            guard let first = mib.first, let last = mib.last else { return }
            startMiB = first.y
            endMiB = last.y
            peakMiB = mib.map(\.y).max() ?? 0
            let after = mib.filter { $0.t >= warmup }
            warmedMiB = after.first?.y ?? last.y
            slopeMiBPerHour = Self.slope(after)
            lateSlopeMiBPerHour = Self.slope(mib.filter { $0.t >= last.t / 2 })
        }

        /// Least-squares slope, MiB per hour: Σ (t - t̄)(y - ȳ) / Σ (t - t̄)², t in hours.
        private static func slope(_ points: [(t: Double, y: Double)]) -> Double {
            let n = Double(points.count)
            guard n >= 2 else { return 0 }
            let tMean = points.map { $0.t / 3600 }.reduce(0, +) / n, yMean = points.map(\.y).reduce(0, +) / n
            let sxy = points.map { ($0.t / 3600 - tMean) * ($0.y - yMean) }.reduce(0, +)
            let sxx = points.map { ($0.t / 3600 - tMean) * ($0.t / 3600 - tMean) }.reduce(0, +)
            return sxx > 0 ? sxy / sxx : 0
        }

        var json: [String: Any] {
            ["startMiB": startMiB, "afterWarmupMiB": warmedMiB, "endMiB": endMiB, "peakMiB": peakMiB,
             "slopeMiBPerHour": slopeMiBPerHour, "secondHalfSlopeMiBPerHour": lateSlopeMiBPerHour]
        }

        var line: String {
            String(format: "start %.1f MiB, after warm-up %.1f, end %.1f, peak %.1f; slope %+.2f MiB/h (second half %+.2f)",
                   startMiB, warmedMiB, endMiB, peakMiB, slopeMiBPerHour, lateSlopeMiBPerHour)
        }
    }

    /// Recovery times of one kind, seconds; nil where nothing came within the search span.
    struct Recovery {
        var times: [Double?]
        let limit: Double

        var measured: [Double] { times.compactMap { $0 }.sorted() }
        var maximum: Double? { times.contains { $0 == nil } ? nil : measured.last }
        var median: Double? { measured.isEmpty ? nil : measured[measured.count / 2] }
        /// Recoveries slower than `limit`, or none at all.
        var over: Int { times.filter { $0.map { $0 > limit } ?? true }.count }

        var json: [String: Any] {
            ["count": times.count, "max": maximum ?? NSNull(), "median": median ?? NSNull(), "overLimit": over,
             "seconds": times.map { $0 ?? NSNull() as Any }]
        }

        var line: String {
            guard !times.isEmpty else { return "none" }
            let maxText = maximum.map { String(format: "%.2f s", $0) } ?? "never (at least once)"
            let medianText = median.map { String(format: "%.2f s", $0) } ?? "-"
            return "\(times.count) restarts: max \(maxText), median \(medianText), over \(Int(limit)) s: \(over)"
        }
    }

    var memorySolver: Memory
    var memoryReceiver: Memory
    /// The same for RssAnon alone.
    var anonymousSolver: Memory
    var anonymousReceiver: Memory
    var brokerToFix: Recovery
    var brokerToBatch: Recovery
    var worldToBatch: Recovery

    init(samples: [SoakSample], warmup: Double, limit: Double) {
        memorySolver = Memory(samples.map { ($0.t, $0.solverKiB) }, warmup: warmup)
        memoryReceiver = Memory(samples.map { ($0.t, $0.receiverKiB) }, warmup: warmup)
        anonymousSolver = Memory(samples.map { ($0.t, $0.solverAnonKiB) }, warmup: warmup)
        anonymousReceiver = Memory(samples.map { ($0.t, $0.receiverAnonKiB) }, warmup: warmup)
        brokerToFix = Recovery(times: [], limit: limit)
        brokerToBatch = Recovery(times: [], limit: limit)
        worldToBatch = Recovery(times: [], limit: limit)
    }

    /// Recovery of every disruption from the arrivals: after a broker restart the solver's next fix and the
    /// receiver's next batch; after a world restart the receiver's next batch with a sighting heard since.
    mutating func recoveries(broker: [SoakDisruption], world: [SoakDisruption], arrivals: SoakArrivals,
                             start: Double, searchSeconds: Double = 60) {
        func within(_ arrived: Double?, _ back: Double) -> Double? {
            arrived.flatMap { $0 - back <= searchSeconds ? $0 - back : nil }
        }
        brokerToFix.times = broker.map { within(arrivals.firstFix(after: start + $0.back)?.arrived, start + $0.back) }
        brokerToBatch.times = broker.map {
            within(arrivals.firstBatch(after: start + $0.back)?.arrived, start + $0.back)
        }
        worldToBatch.times = world.map { event in
            let back = start + event.back
            return within(arrivals.firstBatch(after: back) { $0.sightings > 0 && $0.newest >= back }?.arrived, back)
        }
    }

}
