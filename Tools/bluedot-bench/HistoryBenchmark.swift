import BlueDotCore
import Foundation
import History
import LocationDisplay

/// `bluedot-bench history [--tags N] [--rate HZ] [--seconds S] [--fixes N] [--path FILE]`: the location history's
/// figures, in three parts (release build):
/// 1. **Sustained writes**: `--tags` targets (500) each with a fix at `--rate` Hz (1) for `--seconds` (30), recorded
///    in real time as the spine's observer would; the process's CPU time over the wall time is the history's CPU
///    share (the benchmark does nothing else), and the queue must never drop. Then as fast as the writer takes them:
///    the largest sustained rate.
/// 2. **Size**: `--fixes` (1,000,000) fixes of 500 targets with 30-character ids and rooms, then the file's bytes
///    per fix (database and WAL after a checkpoint).
/// 3. **One tag's day**: 86,400 fixes of one tag among the others, then the query of that day: all of it in pages of
///    10,000, and a first page of 1,000, each timed 20 times (p50 and p99).
enum HistoryBenchmark {
    static func run(_ arguments: [String]) throws {
        var tags = 500, rate = 1.0, seconds = 30.0, fixes = 1_000_000
        var path: String?
        var i = 0
        while i + 1 < arguments.count {
            let value = arguments[i + 1]
            switch arguments[i] {
            case "--tags": tags = Int(value) ?? tags
            case "--rate": rate = Double(value) ?? rate
            case "--seconds": seconds = Double(value) ?? seconds
            case "--fixes": fixes = Int(value) ?? fixes
            case "--path": path = value
            default: throw BenchError("unknown option \(arguments[i])")
            }
            i += 2
        }
        let folder = path.map { ($0 as NSString).deletingLastPathComponent }
            ?? NSTemporaryDirectory() + "bluedot-bench-history-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { if path == nil { try? FileManager.default.removeItem(atPath: folder) } }
        let clock = SystemClock()
        let ids = (0..<max(tags, 500)).map { String(format: "ibeacon:b10ed07d-0000-4000-8000-%012d", $0) }

        // 1. Sustained writes in real time, then flat out.
        let live = try HistoryStore(path: folder + "/live.sqlite", clock: clock)
        let cpu0 = ResourceUsage.cpuSeconds(), wall0 = clock.now()
        var t = wall0
        var written = 0
        while t - wall0 < seconds {
            let now = clock.now()
            if now < t { usleep(UInt32(min(0.05, t - now) * 1e6)) ; continue }
            live.record(ids.prefix(tags).enumerated().map { k, id in location(id, t, k) })
            written += tags
            t += 1 / rate
        }
        live.flush()
        let cpu = ResourceUsage.cpuSeconds() - cpu0, wall = clock.now() - wall0
        let stats = live.statistics
        print(String(format: "sustained: %d tags at %.1f Hz for %.0f s: %d fixes, %.4f cores (CPU %.2f s over %.1f s), dropped %d, last commit %.1f ms",
                     tags, rate, seconds, written, cpu / wall, cpu, wall, stats.dropped, stats.lastCommitSeconds * 1000))
        let burst = 200_000
        let start = clock.now()
        var sent = 0
        while sent < burst {
            live.record(ids.prefix(tags).enumerated().map { k, id in location(id, t, k) })
            sent += tags
            t += 1
            if live.statistics.dropped > stats.dropped { break }
        }
        live.flush()
        let flat = clock.now() - start
        print(String(format: "flat out: %d fixes in %.2f s = %.0f fixes/s (dropped %d)", sent, flat, Double(sent) / flat,
                     live.statistics.dropped - stats.dropped))
        live.close()

        // 2. Bytes per fix.
        let sizePath = folder + "/size.sqlite"
        let sized = try HistoryStore(path: sizePath, clock: clock)
        var k = 0
        let t0 = clock.now() - Double(fixes / 500)
        while k < fixes {
            let n = min(5000, fixes - k)
            sized.record((0..<n).map { j in location(ids[(k + j) % 500], t0 + Double((k + j) / 500), k + j) })
            k += n
            if k % 100_000 == 0 { sized.flush() }
        }
        sized.flush()
        sized.housekeepNow()
        sized.close()
        let bytes = fileBytes(sizePath) + fileBytes(sizePath + "-wal")
        print(String(format: "size: %d fixes of 500 targets: %.1f MB, %.1f bytes per fix, %.0f MB per million fixes",
                     fixes, Double(bytes) / 1e6, Double(bytes) / Double(fixes), Double(bytes) / Double(fixes)))

        // 3. One tag's day among the others.
        let day = try HistoryStore(path: folder + "/day.sqlite", clock: clock)
        let dayStart = clock.now() - 86_400
        for second in stride(from: 0, to: 86_400, by: 600) {
            var batch: [Location] = []
            for s in second..<(second + 600) {
                batch.append(location(ids[0], dayStart + Double(s), s))
                if s % 10 == 0 { batch.append(contentsOf: ids[1..<20].map { location($0, dayStart + Double(s), s) }) }
            }
            day.record(batch)
            if second % 6000 == 0 { day.flush() }
        }
        day.flush()
        var whole: [Double] = [], first: [Double] = []
        var count = 0
        for _ in 0..<20 {
            var query = HistoryQuery(target: ids[0], from: dayStart, to: dayStart + 86_400, limit: 10_000)
            let a = clock.now()
            count = 0
            repeat {
                let page = try day.fixes(query)
                count += page.records.count
                query.cursor = page.next
            } while query.cursor != nil
            whole.append(clock.now() - a)
            let b = clock.now()
            _ = try day.fixes(HistoryQuery(target: ids[0], from: dayStart, to: dayStart + 86_400, limit: 1000))
            first.append(clock.now() - b)
        }
        day.close()
        whole.sort()
        first.sort()
        print(String(format: "one tag's day: %d fixes (among %d other tags' fixes): all pages %.0f ms p50, %.0f ms p99; first page of 1,000 %.1f ms p50, %.1f ms p99",
                     count, 19 * 8640, whole[10] * 1000, whole[19] * 1000, first[10] * 1000, first[19] * 1000))
    }

    /// A fix like the engine's, with coordinates and a room.
    static func location(_ id: String, _ t: Double, _ k: Int) -> Location {
        Location(timestamp: t, targetID: id, x: Double(k % 40) * 0.5, y: Double(k % 30) * 0.5, floor: 0,
            horizontalAccuracyMeters: 1.8, speedMetersPerSecond: 0.6, courseDegrees: 90, anchorCount: 6,
            latitude: 41.08 + Double(k % 100) * 1e-6, longitude: 29.05, room: k % 3 == 0 ? "open-lab" : "kitchen",
            roomProbability: 0.8)
    }

    static func fileBytes(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
