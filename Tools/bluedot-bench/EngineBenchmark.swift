import BlueDotCore
import Foundation
import Positioning

/// `bluedot-bench engine`: the positioning engine alone on the gateway benchmark's site (`GatewaySite`: 1,000
/// receivers, 500 tags, each heard by its 6 nearest receivers at `--rate` Hz per link), configured as `bluedot run`
/// configures it. The sightings are made first. The first `--warmup` seconds of them start every tag untimed (a
/// tag's first fix searches the whole venue's grid, which the daemon's bench leaves in its warm-up too); then
/// `ingest` of the rest is timed in process CPU time, so the figure is the engine's share of the daemon's
/// `cores per 1,000 reports/s`. Small runs suit callgrind, whose instruction counts do not vary with the machine's
/// load: `valgrind --tool=callgrind --toggle-collect='*EngineBenchmark*steady*' bluedot-bench engine --rounds 1`.
/// With `--sleep-every N` it runs the sightings once more with the thread asleep for 2 ms after every N of them, as
/// the daemon's paced replay wakes (6 is its share of a 2 ms quantum at 3,000 reports/s), and reports the engine's
/// CPU then, the sleeps' own CPU (measured alone) taken off: what work costs when a wake has left the caches cold.
/// `--no-site-evidence` turns off what the residuals say of the site's model (`SiteEvidence`), to price it.
enum EngineBenchmark {
    static func run(_ arguments: [String]) throws {
        var anchors = 1000, tags = 500, seconds = 30.0, warmup = 5.0, rateHz = 1.0, rounds = 3, sleepEvery = 0
        var configuration = EngineConfiguration.moving
        var i = 0
        while i < arguments.count {
            if arguments[i] == "--no-site-evidence" {
                configuration.usesSiteEvidence = false
                i += 1
                continue
            }
            guard i + 1 < arguments.count else { throw BenchError("\(arguments[i]) needs a value") }
            let value = arguments[i + 1]
            switch arguments[i] {
            case "--anchors": anchors = try number(value, arguments[i])
            case "--tags": tags = try number(value, arguments[i])
            case "--seconds": seconds = Double(try number(value, arguments[i]))
            case "--warmup": warmup = Double(try number(value, arguments[i]))
            case "--rate": rateHz = Double(value) ?? rateHz
            case "--rounds": rounds = try number(value, arguments[i])
            case "--sleep-every": sleepEvery = try number(value, arguments[i])
            default: throw BenchError("unknown option \(arguments[i])")
            }
            i += 2
        }
        var site = GatewaySite(anchors: anchors, tags: tags, rateHz: rateHz, seed: 7)
        var warm: [Observation] = [], stream: [Observation] = []
        while site.t < warmup { warm += site.step() }
        while site.t < warmup + seconds { stream += site.step() }
        var best = Double.infinity
        var fixCount = 0
        for _ in 0..<max(rounds, 1) {
            var engine = PositioningEngine(venue: site.venue, configuration: configuration)
            var fixes: [Location] = []
            for o in warm { engine.ingest(o, into: &fixes) }
            fixes.removeAll(keepingCapacity: true)
            let start = clock()
            steady(&engine, stream, &fixes)
            best = min(best, Double(clock() - start) / Double(CLOCKS_PER_SEC))
            fixCount = fixes.count
        }
        let reportsPerSecond = Double(stream.count) / seconds
        print(String(format: "engine: %d receivers, %d tags, %.0f s of sightings at %.1f Hz per link after %.0f s: "
                     + "%d sightings, %d fixes", anchors, tags, seconds, rateHz, warmup, stream.count, fixCount))
        print(String(format: "best of %d: %.3f CPU s; %.2f µs per sighting, %.1f µs per fix", rounds, best,
                     best / Double(stream.count) * 1e6, best / Double(max(fixCount, 1)) * 1e6))
        print(String(format: "cores per 1,000 reports/s at the site's pace (%.0f reports/s): %.4f", reportsPerSecond,
                     best / seconds / (reportsPerSecond / 1000)))
        guard sleepEvery > 0 else { return }
        // The same sightings with the thread asleep for 2 ms after every `sleepEvery` of them, as a paced replay
        // wakes: the sleeps' own CPU, measured alone, is taken off.
        let sleeps = stream.count / sleepEvery
        var start = clock()
        for _ in 0..<sleeps { usleep(2000) }
        let sleeping = Double(clock() - start) / Double(CLOCKS_PER_SEC)
        var engine = PositioningEngine(venue: site.venue, configuration: .moving)
        var fixes: [Location] = []
        for o in warm { engine.ingest(o, into: &fixes) }
        fixes.removeAll(keepingCapacity: true)
        start = clock()
        steady(&engine, stream, &fixes, sleepEvery: sleepEvery)
        let paced = Double(clock() - start) / Double(CLOCKS_PER_SEC) - sleeping
        print(String(format: "woken every %d sightings (2 ms asleep, %d times; the sleeps alone %.3f CPU s): %.3f CPU s, "
                     + "%.1f µs per fix, %.4f cores per 1,000 reports/s (%.1f times the figure above)", sleepEvery, sleeps,
                     sleeping, paced, paced / Double(max(fixes.count, 1)) * 1e6,
                     paced / seconds / (reportsPerSecond / 1000), paced / best))
    }

    /// The timed part, a function of its own so that callgrind can count it alone.
    @inline(never)
    static func steady(_ engine: inout PositioningEngine, _ stream: [Observation], _ fixes: inout [Location]) {
        for o in stream { engine.ingest(o, into: &fixes) }
    }

    /// The timed part with the thread asleep for 2 ms after every `sleepEvery` sightings.
    @inline(never)
    static func steady(
        _ engine: inout PositioningEngine, _ stream: [Observation], _ fixes: inout [Location], sleepEvery: Int
    ) {
        for (k, o) in stream.enumerated() {
            engine.ingest(o, into: &fixes)
            if (k + 1) % sleepEvery == 0 { usleep(2000) }
        }
    }

    private static func number(_ value: String, _ option: String) throws -> Int {
        guard let n = Int(value), n > 0 else { throw BenchError("\(option) needs a positive whole number") }
        return n
    }
}
