import BlueDotCore
import Devices
import Formats
import JSON
import Logging
import Positioning

/// The receiver role's output: every report of a registry device or a known beacon (the mapper drops strangers
/// before they get here: `DeviceIdentifier`), batched to `bluedot/<site>/sightings/<receiver>`
/// (`SightingBatch`), with telemetry every 10 s.
///
/// `offer` never blocks the scanner: it appends to a bounded buffer under a lock. A batch leaves every
/// `batchIntervalSeconds` (100 ms) or as soon as `batchLimit` (500) sightings wait, at QoS 1 so the broker's
/// acknowledgements pace it: while the broker is down, or `maximumInFlight` batches are unacknowledged (a slow
/// broker), sightings wait in the buffer. The buffer holds `bufferSeconds` (30 s) of sightings, at most
/// `bufferLimit`; beyond that the oldest are dropped and counted. When the link comes back the buffer drains by
/// itself, oldest first, each batch stamped with the receiver's clock at sending so the solver's clock-offset
/// estimate stays right.
public final class SightingPublisher: Sendable {
    /// Batching, buffering and filtering.
    public struct Settings: Sendable, Hashable {
        /// Longest wait before a batch leaves, seconds.
        public var batchIntervalSeconds = 0.1
        /// Most sightings per batch.
        public var batchLimit = SightingBatch.maximumSightings
        /// How much the buffer holds while the broker is away, seconds of sightings.
        public var bufferSeconds = 30.0
        /// Most sightings held whatever their age (memory bound).
        public var bufferLimit = 300_000
        /// Unacknowledged batches allowed before holding back.
        public var maximumInFlight = 16
        /// Seconds between telemetry messages.
        public var telemetryIntervalSeconds = 10.0
        /// Beacon-id globs to publish; empty: every beacon.
        public var allow: [IDPattern] = []

        /// The defaults.
        public init() {}
    }

    /// Counters since start.
    public struct Statistics: Sendable, Hashable {
        /// Sightings offered (after the allow-list).
        public var heard = 0
        /// Sightings the allow-list kept back.
        public var filtered = 0
        /// Sightings published.
        public var published = 0
        /// Sightings dropped because the buffer was full or too old.
        public var dropped = 0
        /// Sightings waiting now.
        public var buffered = 0
        /// Batches published.
        public var batches = 0
    }

    private struct State {
        var buffer: [Observation] = []
        var head = 0
        var sequence = 0
        var statistics = Statistics()
        var heardAtLastTelemetry = 0
        var lastTelemetryAt: Double

        var count: Int { buffer.count - head }

        mutating func dropFirst(_ n: Int) {
            head += n
            if head == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 4096, head * 2 >= buffer.count {
                buffer.removeSubrange(0..<head)
                head = 0
            }
        }
    }

    /// The receiver's id (its anchor id at the solver).
    public let receiver: String
    /// The site's topics.
    public let topics: SiteTopics
    /// The settings.
    public let settings: Settings
    private let client: MQTTClient
    private let devices: DeviceIdentifier?
    private let clock: any BlueDotClock
    private let logger: Logger
    private let startedAt: Double
    private let state: LockedValue<State>

    /// Creates the publisher; `run()` sends on its own schedule, `offer` on volume. `devices`, the receiver's
    /// identifier, gives the telemetry the count of strangers heard (a count, never an address) and of the
    /// devices' private addresses resolved.
    public init(
        client: MQTTClient, topics: SiteTopics, receiver: String, settings: Settings = Settings(),
        devices: DeviceIdentifier? = nil, clock: any BlueDotClock, logger: Logger
    ) {
        self.client = client
        self.devices = devices
        self.topics = topics
        self.receiver = receiver
        self.settings = settings
        self.clock = clock
        self.logger = logger
        let now = clock.now()
        startedAt = now
        state = LockedValue(State(lastTelemetryAt: now))
    }

    /// The counters.
    public var statistics: Statistics {
        state.withLock { s in
            var out = s.statistics
            out.buffered = s.count
            return out
        }
    }

    /// Takes one observation of this receiver (tag mode: the beacon heard is the target). Never blocks on the
    /// network; sends a batch at once when `batchLimit` sightings wait.
    public func offer(_ o: Observation) {
        guard IDPattern.allows(settings.allow, o.target) else {
            state.withLock { $0.statistics.filtered += 1 }
            return
        }
        let full = state.withLock { s -> Bool in
            s.statistics.heard += 1
            if s.count >= settings.bufferLimit {
                s.dropFirst(1)
                s.statistics.dropped += 1
            }
            s.buffer.append(o)
            return s.count >= settings.batchLimit
        }
        if full { flush(onlyFull: true) }
    }

    /// Sends what waits, in batches, as far as the link allows; with `onlyFull`, whole batches only.
    public func flush(onlyFull: Bool = false) {
        let now = clock.now()
        state.withLock { s in
            // Too old to be worth sending: the buffer keeps `bufferSeconds`.
            var old = 0
            while old < s.count, s.buffer[s.head + old].t < now - settings.bufferSeconds { old += 1 }
            if old > 0 {
                s.dropFirst(old)
                s.statistics.dropped += old
            }
            while s.count > 0, !onlyFull || s.count >= settings.batchLimit {
                guard client.isConnected, client.inFlight < settings.maximumInFlight else { return }
                let n = min(s.count, settings.batchLimit)
                let batch = SightingBatch(
                    receiver: receiver, sequence: s.sequence, clock: now,
                    sightings: Array(s.buffer[s.head..<(s.head + n)]))
                let message = MQTTMessage(topic: topics.sightings(receiver: receiver), payload: batch.encoded(), qos: 1)
                switch client.publish(message) {
                case .sent:
                    s.dropFirst(n)
                    s.sequence += 1
                    s.statistics.published += n
                    s.statistics.batches += 1
                case .notConnected:
                    return
                case .failed(let why):
                    // Not the link: the batch itself (cannot happen with our sizes); drop it rather than loop.
                    logger.error("sighting batch refused; dropped", metadata: ["error": "\(why)", "sightings": "\(n)"])
                    s.dropFirst(n)
                    s.statistics.dropped += n
                }
            }
        }
    }

    /// The telemetry object: rates and counters since start, the receiver's clock.
    public func telemetry() -> [UInt8] {
        let now = clock.now()
        let (stats, rate) = state.withLock { s in
            let elapsed = now - s.lastTelemetryAt
            let rate = elapsed > 0 ? Double(s.statistics.heard - s.heardAtLastTelemetry) / elapsed : 0
            s.heardAtLastTelemetry = s.statistics.heard
            s.lastTelemetryAt = now
            var out = s.statistics
            out.buffered = s.count
            return (out, rate)
        }
        var w = JSONObjectWriter()
        w.string("receiver", receiver)
        w.raw("clock", JSONText.fixed(now, decimals: 3))
        w.raw("uptime", JSONText.fixed(now - startedAt, decimals: 1))
        w.raw("reportsPerSecond", JSONText.fixed(rate, decimals: 1))
        w.raw("heard", "\(stats.heard)")
        w.raw("published", "\(stats.published)")
        w.raw("dropped", "\(stats.dropped)")
        w.raw("filtered", "\(stats.filtered)")
        w.raw("buffered", "\(stats.buffered)")
        w.raw("batches", "\(stats.batches)")
        if let devices {
            let d = devices.statistics
            w.raw("strangers", "\(d.strangers)")
            w.raw("privateAddressesResolved", "\(d.resolver.resolved)")
        }
        w.raw("connected", client.isConnected ? "true" : "false")
        return Array(w.finish().utf8)
    }

    /// Sends batches every `batchIntervalSeconds` and telemetry every `telemetryIntervalSeconds` on the clock
    /// until cancelled; sends what is left on the way out.
    public func run() async {
        var nextTelemetry = clock.now() + settings.telemetryIntervalSeconds
        var next = clock.now() + settings.batchIntervalSeconds
        while (try? await clock.sleep(until: next)) != nil {
            next += settings.batchIntervalSeconds
            let now = clock.now()
            if next < now { next = now + settings.batchIntervalSeconds }
            flush()
            if now >= nextTelemetry {
                nextTelemetry = now + settings.telemetryIntervalSeconds
                client.publish(MQTTMessage(topic: topics.receiverTelemetry(receiver: receiver), payload: telemetry(),
                                           qos: 0, retain: true))
            }
        }
        flush()
    }
}
