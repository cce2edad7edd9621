import Formats
import Foundation
import Positioning

/// The gateway benchmark's synthetic tag-mode site: receivers on a square-ish 5 m grid, tags walking at
/// 1 m/s with a new random heading every 5 s (reflected at the edges), each tag heard every 1/rate s by its 6
/// nearest receivers at a random phase per link, RSSI = -59 - 20 log10(d) + N(0, 3²). Seeded: the same
/// arguments give the same sightings.
///
/// `step()` makes one period's sightings at a time, so a long run (the soak) generates them as it goes instead
/// of holding hours of them; `write` puts a whole run in files.
struct GatewaySite {
    /// The receivers, `rx-0000` ... on the grid.
    let receivers: [Anchor]
    /// The venue: the receivers and the grid's bounds.
    let venue: Venue
    /// One period, 1/rate seconds.
    let period: Double
    /// The start of the next period `step()` makes, seconds from 0.
    private(set) var t = 0.0

    private struct Walker { var x: Double, y: Double, heading: Double }
    private var walkers: [Walker]
    private let phases: [Double]
    private let rateHz: Double
    private let width: Double, height: Double
    private var rng: Xoshiro256StarStar

    /// `anchors` receivers and `tags` walkers, each link heard at `rateHz`.
    init(anchors: Int, tags: Int, rateHz: Double, seed: UInt64) {
        rng = Xoshiro256StarStar(seed: seed)
        let columns = Int((Double(anchors) * 1.6).squareRoot().rounded(.up))
        let spacing = 5.0
        receivers = (0..<anchors).map { i in
            Anchor(id: String(format: "rx-%04d", i), x: Double(i % columns) * spacing, y: Double(i / columns) * spacing, z: 2.5)
        }
        width = Double(columns - 1) * spacing
        height = Double((anchors - 1) / columns) * spacing
        venue = Venue(
            name: "gateway benchmark: \(anchors) receivers", anchors: receivers,
            bounds: Venue.Bounds(minX: 0, minY: 0, maxX: width, maxY: height))
        var walkers: [Walker] = []
        for _ in 0..<tags {
            let x = RandomDraws.unit(using: &rng) * width, y = RandomDraws.unit(using: &rng) * height
            walkers.append(Walker(x: x, y: y, heading: RandomDraws.unit(using: &rng) * 2 * .pi))
        }
        self.walkers = walkers
        var phases: [Double] = []
        for _ in 0..<(tags * 6) { phases.append(RandomDraws.unit(using: &rng) / rateHz) }
        self.phases = phases
        self.rateHz = rateHz
        period = 1 / rateHz
    }

    /// The sightings of the period starting at `t`, in time order (all within `t ..< t + period`); then every
    /// tag walks one period and `t` moves on.
    mutating func step() -> [Observation] {
        var observations: [Observation] = []
        observations.reserveCapacity(walkers.count * 6)
        let receivers = receivers
        for (k, w) in walkers.enumerated() {
            let nearest = receivers.indices.lazy
                .map { i in (i, (receivers[i].x - w.x) * (receivers[i].x - w.x) + (receivers[i].y - w.y) * (receivers[i].y - w.y)) }
                .sorted { $0.1 < $1.1 }.prefix(6)
            for (rank, (i, d2)) in nearest.enumerated() {
                let d = (d2 + 1.3 * 1.3).squareRoot()
                let rssi = -59 - 20 * log10(d) + RandomDraws.normal(standardDeviation: 3, using: &rng)
                observations.append(Observation(
                    t: t + phases[k * 6 + rank], anchor: receivers[i].id, target: String(format: "tag-%03d", k),
                    rssiDBm: (rssi * 10).rounded() / 10))
            }
        }
        for k in walkers.indices {
            if Int(t / period) % Int(5 * rateHz) == 0 { walkers[k].heading = RandomDraws.unit(using: &rng) * 2 * .pi }
            var w = walkers[k]
            w.x += cos(w.heading) * period
            w.y += sin(w.heading) * period
            if w.x < 0 || w.x > width { w.heading = .pi - w.heading; w.x = min(max(w.x, 0), width) }
            if w.y < 0 || w.y > height { w.heading = -w.heading; w.y = min(max(w.y, 0), height) }
            walkers[k] = w
        }
        t += period
        observations.sort { $0.t < $1.t }
        return observations
    }

    /// Writes `site.venue.json` and `site.observations.jsonl` (every period from 0 up to `seconds`) into
    /// `directory`; returns their paths and the number of observations.
    static func write(
        to directory: String, anchors: Int, tags: Int, seconds: Double, rateHz: Double, seed: UInt64
    ) throws -> (venue: String, observations: String, count: Int) {
        var site = GatewaySite(anchors: anchors, tags: tags, rateHz: rateHz, seed: seed)
        let venuePath = directory + "/site.venue.json"
        try VenueWriter.json(site.venue).write(toFile: venuePath, atomically: true, encoding: .utf8)
        let path = directory + "/site.observations.jsonl"
        var text = ""
        text.reserveCapacity(Int(seconds * rateHz) * tags * 6 * 80)
        var count = 0
        while site.t < seconds {
            for o in site.step() {
                text += ObservationWriter.line(o) + "\n"
                count += 1
            }
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (venuePath, path, count)
    }
}
