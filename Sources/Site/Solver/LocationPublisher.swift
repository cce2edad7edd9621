import BeaconLocation
import BlueDotCore
import Formats
import LocationBus
import Positioning

/// An observer of the solver's `LocationSource` that publishes every fix to `bluedot/<site>/locations/<target>`,
/// retained, as one object of the location stream (`docs/formats.md`), so a subscriber that comes later (a
/// dashboard, a restarted consumer) gets each target's latest fix at once.
///
/// A target forgotten by the source keeps its last retained fix (marked by its own `t` and `lastKnown`); a
/// target id that cannot be a topic level (`/`, `+`, `#`) is counted and not published.
public final class LocationPublisher: LocationSourceObserver, Sendable {
    /// Counters since start.
    public struct Statistics: Sendable, Hashable {
        /// Fixes published.
        public var published = 0
        /// Fixes not published: the link was down.
        public var notConnected = 0
        /// Fixes of targets whose id cannot be a topic level.
        public var badTopic = 0
    }

    /// The site's topics.
    public let topics: SiteTopics
    private let client: MQTTClient
    private let clock: any BlueDotClock
    private let counters = LockedValue(Statistics())
    private let latencies = LockedValue(LatencyWindow())

    /// Creates the publisher over `client` (the solver's connection).
    public init(client: MQTTClient, topics: SiteTopics, clock: any BlueDotClock) {
        self.client = client
        self.topics = topics
        self.clock = clock
    }

    /// The counters.
    public var statistics: Statistics { counters.value }

    /// Clock time at publishing minus each fix's time (its grid point), seconds: the 50th and 99th percentile of
    /// the last 4096 fixes; nil before the first.
    public var publishLag: (p50: Double, p99: Double)? { latencies.withLock { $0.percentiles() } }

    /// Publishes each location.
    public func onLocationsUpdated(_ locations: [Location], source: LocationSource) {
        let now = clock.now()
        var stats = Statistics()
        for location in locations {
            guard SiteTopics.isTopicLevel(location.targetID) else {
                stats.badTopic += 1
                continue
            }
            var payload: [UInt8] = []
            payload.reserveCapacity(256)
            LocationWriter.append(location, to: &payload)
            let message = MQTTMessage(topic: topics.location(target: location.targetID), payload: payload, qos: 0,
                                      retain: true)
            if case .sent = client.publish(message) {
                stats.published += 1
                latencies.withLock { $0.add(now - location.timestamp) }
            } else {
                stats.notConnected += 1
            }
        }
        counters.withLock { c in
            c.published += stats.published
            c.notConnected += stats.notConnected
            c.badTopic += stats.badTopic
        }
    }

    /// Nothing: the retained last fix stays.
    public func onLocationsDeleted(_ targetIDs: [String], source: LocationSource) {}

    /// Nothing: the solver's status topic says whether it runs.
    public func onStatusChanged(_ status: LocationSourceStatus, source: LocationSource) {}
}

/// The last few thousand lags, for percentiles.
struct LatencyWindow: Sendable {
    private var values: [Double] = []
    private var next = 0
    private let capacity = 4096

    mutating func add(_ x: Double) {
        if values.count < capacity {
            values.append(x)
        } else {
            values[next] = x
            next = (next + 1) % capacity
        }
    }

    func percentiles() -> (p50: Double, p99: Double)? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        func at(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int(q * Double(sorted.count)))] }
        return (at(0.5), at(0.99))
    }
}
