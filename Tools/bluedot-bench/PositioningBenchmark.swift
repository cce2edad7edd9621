import BlueDotCore
import Foundation
import Positioning

/// `bluedot-bench positioning`: engine throughput on a synthetic stream (release build, one core).
///
/// T targets walk a 30 m x 30 m hall with 16 anchors; each packet comes from one of the 10 anchors nearest
/// its target (the "10 anchors in range"), RSSI from the log-distance model with 3 dB jitter and 5%
/// outliers 20 dB low. The stream is generated first; only `ingest` and `finish` are timed (CPU time).
enum PositioningBenchmark {
    /// SplitMix64, seeded: the stream is the same on every run.
    typealias Generator = SplitMix64

    static func option(_ name: String, in arguments: [String], default value: Int) -> Int {
        guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return value }
        return Int(arguments[i + 1]) ?? value
    }

    static func run(_ arguments: [String]) {
        let count = option("--observations", in: arguments, default: 1_000_000)
        let targets = option("--targets", in: arguments, default: 10)
        let inRange = option("--anchors", in: arguments, default: 10)
        let rate = Double(option("--rate", in: arguments, default: 100))   // packets per second per target
        var rng = Generator(seed: 42)
        var anchors: [Anchor] = []
        for i in 0..<16 {
            anchors.append(Anchor(id: "rx-\(i)", x: Double(i % 4) * 10, y: Double(i / 4) * 10, z: 2.5))
        }
        let model = PathLossModel(measuredPowerDBm: -60, pathLossExponent: 2.2, shadowingSigmaDB: 4)
        let venue = Venue(name: "bench", model: model, anchors: anchors,
                          bounds: Venue.Bounds(minX: 0, minY: 0, maxX: 30, maxY: 30))
        // Generate: targets on circles; packets interleaved in time order.
        var stream: [Observation] = []
        stream.reserveCapacity(count)
        let names = (0..<targets).map { "tag-\($0)" }
        let dt = 1 / (rate * Double(targets))
        for k in 0..<count {
            let t = Double(k) * dt
            let j = k % targets
            let θ = 0.1 * t + Double(j)
            let x = 15 + 10 * cos(θ), y = 15 + 10 * sin(θ)
            let nearest = anchors.indices.sorted {
                hypot(anchors[$0].x - x, anchors[$0].y - y) < hypot(anchors[$1].x - x, anchors[$1].y - y)
            }.prefix(inRange)
            let a = anchors[nearest[nearest.startIndex + (k / targets) % inRange]]
            let d = (hypot(a.x - x, a.y - y) * hypot(a.x - x, a.y - y) + 1.69).squareRoot()
            var rssi = model.rssiDBm(atDistanceMeters: d) + 3 * rng.gaussian()
            if Double.random(in: 0..<1, using: &rng) < 0.05 { rssi -= 20 }
            stream.append(Observation(t: t, anchor: a.id, target: names[j], rssiDBm: (rssi * 100).rounded() / 100))
        }
        // Two passes over the same stream: the engine as configured, and with fixes switched off (an interval
        // longer than the stream), so the per-fix cost is the difference over the fixes.
        // Timed in process CPU seconds (`clock()`), so that other work on a shared machine does not count.
        // A residual bias field fitted on a survey of the hall every metre (model + a 3 dB bias pattern), for
        // the engine's cost with the site model on (`ResidualField`).
        var survey: [CalibrationSample] = []
        for a in anchors {
            for i in 0...30 {
                for j in 0...30 {
                    let (x, y) = (Double(i), Double(j))
                    let d = (hypot(a.x - x, a.y - y) * hypot(a.x - x, a.y - y) + 1.69).squareRoot()
                    let bias = 3 * sin(0.5 * x) * cos(0.4 * y)
                    survey.append(CalibrationSample(anchor: a.id, rssiDBm: model.rssiDBm(atDistanceMeters: d) + bias,
                                                    x: x, y: y, z: 1.2))
                }
            }
        }
        let fitStart = clock()
        let field = ResidualField.fit(survey, venue: venue)
        let fitSeconds = Double(clock() - fitStart) / Double(CLOCKS_PER_SEC)
        func timed(interval: Double, field: ResidualField? = nil) -> (seconds: Double, fixes: Int) {
            var configuration = EngineConfiguration.moving
            configuration.residualField = field
            configuration.intervalSeconds = interval
            configuration.holdoverSeconds = 0
            var engine = PositioningEngine(venue: venue, configuration: configuration)
            var fixes: [Location] = []
            fixes.reserveCapacity(count / 10)
            let start = clock()
            for o in stream { engine.ingest(o, into: &fixes) }
            engine.finish(into: &fixes)
            return (Double(clock() - start) / Double(CLOCKS_PER_SEC), fixes.count)
        }
        let full = timed(interval: 1)
        let ingestOnly = timed(interval: 1e12)
        // Fixes every 0.25 s over the same 1 s updates: three of four are predictions.
        let fine = timed(interval: 0.25)
        let withField = timed(interval: 1, field: field)
        print(String(format: "observations %d, targets %d, anchors in range %d, %.0f packets/s per target",
                     count, targets, inRange, rate))
        print(String(format: "replay (1 s grid): %.3f CPU s, %.0f observations/s, %d fixes",
                     full.seconds, Double(count) / full.seconds, full.fixes))
        print(String(format: "ingest only: %.3f CPU s, %.2f µs per observation; per fix: %.1f µs",
                     ingestOnly.seconds, ingestOnly.seconds / Double(count) * 1e6,
                     (full.seconds - ingestOnly.seconds) / Double(max(full.fixes - ingestOnly.fixes, 1)) * 1e6))
        print(String(format: "replay (0.25 s grid, 1 s updates): %.3f CPU s, %.0f observations/s, %d fixes",
                     fine.seconds, Double(count) / fine.seconds, fine.fixes))
        print(String(format: "replay with a residual field (1 s grid): %.3f CPU s, %.0f observations/s; "
                     + "field fit (16 anchors, 961 survey points each): %.3f CPU s",
                     withField.seconds, Double(count) / withField.seconds, fitSeconds))
    }
}
