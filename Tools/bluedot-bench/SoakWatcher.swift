import BlueDotCore
import Formats
import Logging
import Site

/// What the soak's subscriber saw on the broker, each with the time libmosquitto handed it over: every location
/// fix the solver published, and every sighting batch of the real receiver.
final class SoakArrivals: Sendable {
    /// A fix: when it arrived and its own `t` (the grid point it stands for).
    struct Fix: Sendable { var arrived: Double, t: Double }
    /// A batch of the real receiver: when it arrived, how many sightings, the newest sighting's time (the
    /// receiver's clock, which is this machine's).
    struct Batch: Sendable { var arrived: Double, sightings: Int, newest: Double }

    private let fixes = LockedValue<[Fix]>([])
    private let batches = LockedValue<[Batch]>([])

    func add(_ fix: Fix) { fixes.withLock { $0.append(fix) } }
    func add(_ batch: Batch) { batches.withLock { $0.append(batch) } }

    /// The first fix that arrived at or after `time`.
    func firstFix(after time: Double) -> Fix? {
        fixes.withLock { all in Self.first(in: all, at: time, arrived: \.arrived).map { all[$0] } }
    }

    /// The first batch that arrived at or after `time` and satisfies `accept`.
    func firstBatch(after time: Double, where accept: (Batch) -> Bool = { _ in true }) -> Batch? {
        batches.withLock { all in
            guard let i = Self.first(in: all, at: time, arrived: \.arrived) else { return nil }
            return all[i...].first(where: accept)
        }
    }

    /// Sightings in all the receiver's batches.
    var batchSightings: Int { batches.withLock { $0.reduce(0) { $0 + $1.sightings } } }

    /// Every fix (for the lag percentiles).
    var allFixes: [Fix] { fixes.value }

    /// The index of the first element arriving at or after `time` in `items`, which arrive in order.
    private static func first<T>(in items: [T], at time: Double, arrived: KeyPath<T, Double>) -> Int? {
        var low = 0, high = items.count
        while low < high {
            let mid = (low + high) / 2
            if items[mid][keyPath: arrived] < time { low = mid + 1 } else { high = mid }
        }
        return low < items.count ? low : nil
    }
}

/// The soak's subscriber for one lifetime of the broker: a fresh connection made as soon as the broker accepts
/// (so its own reconnect delay is not measured), subscribed to `bluedot/<site>/locations/#` and to the real
/// receiver's sightings, recording into `SoakArrivals`.
final class SoakWatcher {
    private let client: MQTTClient
    private let reading: Task<Void, Never>

    init(url: String, site: String, receiver: String, generation: Int, into arrivals: SoakArrivals) throws {
        var options = try MQTTOptions(url: url)
        options.clientID = "soak-watcher-\(generation)"
        client = try MQTTClient(options: options, logger: Logger(label: "soak.watcher"))
        let sightings = "bluedot/\(site)/sightings/\(receiver)"
        try client.subscribe("bluedot/\(site)/locations/#")
        try client.subscribe(sightings)
        try client.start()
        let events = client.events
        reading = Task.detached {
            for await case .message(let m) in events {
                let arrived = m.receivedAt ?? SystemClock().now()
                if m.topic == sightings {
                    guard let batch = try? SightingBatch.decode(m.payload) else { continue }
                    arrivals.add(SoakArrivals.Batch(
                        arrived: arrived, sightings: batch.sightings.count,
                        newest: batch.sightings.map(\.t).max() ?? -.infinity))
                } else if let t = SiteBenchmark.fixTime(m.payload) {
                    arrivals.add(SoakArrivals.Fix(arrived: arrived, t: t))
                }
            }
        }
    }

    /// Disconnects and stops reading.
    func stop() {
        client.stop(waitSeconds: 0)
        reading.cancel()
    }
}
