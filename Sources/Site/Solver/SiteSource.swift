import BeaconLocation
import BlueDotCore
import Devices
import Formats
import JSON
import Logging
import Positioning

/// The solver role's input: the site's receivers (and ESPresense nodes) over MQTT, as one `ObservationSource` of
/// the spine.
///
/// It subscribes to every receiver's sighting batches, status and telemetry (and, with an ESPresense prefix, to
/// the nodes' device reports and status). Each receiver stamps with its own clock: a `ClockOffsetEstimator` per
/// receiver moves its sightings onto the solver's clock. Sightings from all receivers then wait in one reorder
/// buffer for `reorderWindowSeconds` (batches leave receivers every 100 ms and cross the broker at different
/// speeds) and leave in time order, so the engine sees one ordered stream; a sighting that comes after its time
/// was let out is late (counted per receiver, dropped). What leaves together is handed over as one batch
/// (`run`), each sighting with the time its message arrived. Bad payloads on any topic are counted by
/// kind, logged once per kind and skipped.
///
/// The source owns its MQTT client: `run` starts it (the client reconnects by itself while the broker is away),
/// `stop` publishes the farewell (the solver's `offline`) and disconnects.
public final class SiteSource: ObservationSource {
    /// How the source treats the site.
    public struct Settings: Sendable, Hashable {
        /// How long sightings wait for slower receivers, seconds.
        public var reorderWindowSeconds = 0.3
        /// How often the reorder buffer is let out by the clock when nothing arrives, seconds.
        public var releaseIntervalSeconds = 0.02
        /// The ESPresense base topic to take node reports from (`espresense`); nil: none.
        public var espresensePrefix: String?
        /// Largest payload read, bytes.
        public var maximumPayloadBytes = 256 * 1024
        /// How long a receiver's clock-offset samples count, seconds.
        public var clockWindowSeconds = 30.0

        /// The defaults.
        public init() {}
    }

    /// Counters of the whole site.
    public struct SiteStatistics: Sendable, Hashable {
        /// Sighting batches read.
        public var batches = 0
        /// Sightings read (batches and ESPresense reports).
        public var sightings = 0
        /// Sightings delivered to the engine.
        public var delivered = 0
        /// Sightings from receivers the venue does not know (delivered all the same; the engine skips them).
        public var unknownReceiverSightings = 0
        /// Sightings later than the reorder window (dropped).
        public var late = 0
        /// Sightings of strangers (no registry device, no known beacon), dropped: ESPresense nodes publish every
        /// device they hear, and a receiver without the registry every address.
        public var strangers = 0
        /// Sightings that arrived after a newer one and were put back in order.
        public var reordered = 0
        /// Payloads skipped, by kind (`sightings:malformed`, `sightings:oversized`, `status:malformed`, ...).
        public var rejected: [String: Int] = [:]

        /// All zero.
        public init() {}

        /// All skipped payloads.
        public var rejectedTotal: Int { rejected.values.reduce(0, +) }
    }

    private struct Receiver {
        var info: ReceiverInfo
        var clock: ClockOffsetEstimator
        var nextSequence: Int?
        var rateWindowStart: Double?
        var rateWindowCount = 0
    }

    private struct State {
        var receivers: [String: Receiver] = [:]
        var reorder = ReorderBuffer<Arrival>(tolerance: .infinity)
        var statistics = SiteStatistics()
        var loggedKinds: Set<String> = []
        /// Messages handled, and the client's clock when the last of them arrived.
        var handled = 0
        var lastArrival = -Double.infinity
        var runs = 0
        var stopped = false
    }

    /// The site's topics.
    public let topics: SiteTopics
    /// The client every site message goes through (the location publisher publishes with it too).
    public let client: MQTTClient
    /// The settings.
    public let settings: Settings
    /// The venue's receivers, as the solver knows them.
    private struct Known: Sendable {
        var receivers: Set<String>
        /// The beacon id each known receiver advertises (`ReceiverBeacon`), to its receiver id.
        var beacons: [String: String]
        var measuredPower: [String: Double]

        init(receivers: Set<String>, measuredPower: [String: Double], site: String) {
            self.receivers = receivers
            beacons = Dictionary(
                receivers.compactMap { id in ReceiverBeacon(site: site, receiver: id).map { ($0.beaconID, id) } },
                uniquingKeysWith: { a, _ in a })
            self.measuredPower = measuredPower
        }
    }

    private let known: LockedValue<Known>
    private let devices: DeviceIdentifier
    private let farewell: [MQTTMessage]
    private let clock: any BlueDotClock
    private let logger: Logger
    private let state = LockedValue(State())
    /// The receiver and beacon ids read from batches, shared so that each id is one string (`StringTable`).
    private let ids = LockedValue(StringTable())
    private let delivering = LockedValue(())

    /// A source over `client` for the site `topics`; `knownReceivers` are the venue's anchor ids and
    /// `measuredPower` their model's RSSI at 1 m (ESPresense reports are moved onto it); `devices` maps reported
    /// ids to registry devices (ESPresense's `irk:…` ids and aliases, addresses) and tells strangers, which are
    /// dropped; `farewell` is published on `stop()` (the solver's `offline`).
    public init(
        client: MQTTClient, topics: SiteTopics, knownReceivers: Set<String>, measuredPower: [String: Double] = [:],
        devices: DeviceIdentifier = .beaconsOnly(), settings: Settings = Settings(), farewell: [MQTTMessage] = [],
        clock: any BlueDotClock, logger: Logger
    ) {
        self.client = client
        self.topics = topics
        known = LockedValue(Known(receivers: knownReceivers, measuredPower: measuredPower, site: topics.site))
        self.devices = devices
        self.settings = settings
        self.farewell = farewell
        self.clock = clock
        self.logger = logger
    }

    /// Takes the receivers of a venue saved while running (`knownReceivers`, `measuredPower` as in `init`) from the
    /// next message on; receivers already heard are known or not as the new venue says.
    public func use(knownReceivers: Set<String>, measuredPower: [String: Double]) {
        known.withLock { $0 = Known(receivers: knownReceivers, measuredPower: measuredPower, site: topics.site) }
        state.withLock { s in
            for id in s.receivers.keys { s.receivers[id]?.info.known = knownReceivers.contains(id) }
        }
    }

    /// `mqtt:<broker>/<site>`.
    public var name: String { "mqtt:\(client.options.url)/\(topics.site)" }

    /// Sightings are on the solver's clock once corrected; the grid may go up to the reorder window behind it
    /// (behind the last message read, while others wait).
    public func observationTime(at now: Double) -> Double? { releaseReference(now: now) - settings.reorderWindowSeconds }

    /// The clock time the reorder window is counted back from: now, or, while received messages wait unread (the
    /// solver is busy), the arrival of the last one read, so a message that waited in the queue does not find its
    /// window gone.
    func releaseReference(now: Double) -> Double {
        let received = client.statistics
        return state.withLock { s in
            received.messagesReceived - received.messagesDropped > s.handled ? min(now, s.lastArrival) : now
        }
    }

    /// Every receiver heard of, by id.
    public var receivers: [ReceiverInfo] {
        state.withLock { s in s.receivers.values.map(\.info).sorted { $0.id < $1.id } }
    }

    /// The site's counters.
    public var siteStatistics: SiteStatistics { state.withLock { $0.statistics } }

    /// The counters in the spine's terms.
    public var statistics: SourceStatistics {
        let s = siteStatistics
        var out = SourceStatistics()
        out.reports = s.sightings
        out.malformed = s.rejectedTotal
        out.observations = s.delivered
        out.reconnects = max(0, client.statistics.connects - 1)
        return out
    }

    /// Publishes the farewell, disconnects; `run` returns.
    public func stop() {
        state.withLock { $0.stopped = true }
        client.stop(farewell: farewell)
    }

    /// Subscribes and runs until `stop()`: messages in, sightings out in time order, what leaves the reorder
    /// buffer together as one batch. `started` once connected.
    public func run(
        started: @escaping @Sendable () -> Void, _ deliver: @escaping @Sendable (ObservationBatch) -> Void
    ) async throws {
        let first = state.withLock { s -> Bool? in
            guard !s.stopped else { return nil }
            s.runs += 1
            return s.runs == 1
        }
        guard let first else { return }
        if first {
            try client.subscribe(topics.allSightings, qos: 0)
            try client.subscribe(topics.allReceiverStatus, qos: 0)
            try client.subscribe(topics.allReceiverTelemetry, qos: 0)
            if let prefix = settings.espresensePrefix {
                try client.subscribe("\(prefix)/devices/+/+", qos: 0)
                try client.subscribe("\(prefix)/rooms/+/status", qos: 0)
            }
            try client.start()
        }
        let events = client.events
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var announced = false
                for await event in events {
                    switch event {
                    case .connected(let level):
                        self.logger.notice("connected to the broker", metadata: [
                            "broker": "\(self.client.options.url)", "site": "\(self.topics.site)", "mqtt": "\(level)",
                        ])
                        if !announced {
                            announced = true
                            started()
                        }
                    case .disconnected(let reason):
                        self.logger.warning("broker connection lost; reconnecting", metadata: ["reason": "\(reason)"])
                    case .message(let message):
                        self.handle(message)
                        self.release(deliver)
                    }
                }
            }
            group.addTask {
                var next = self.clock.now()
                while !Task.isCancelled {
                    next += self.settings.releaseIntervalSeconds
                    do { try await self.clock.sleep(until: next) } catch { return }
                    let now = self.clock.now()
                    if next < now - 1 { next = now }
                    self.release(deliver)
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Lets out, in time order and as one batch, every sighting whose time is at least the reorder window behind
    /// `releaseReference`, each with the time its message arrived.
    func release(_ deliver: @Sendable (ObservationBatch) -> Void) {
        delivering.withLock { _ in
            let cutoff = releaseReference(now: clock.now()) - settings.reorderWindowSeconds
            var ready = ObservationBatch()
            state.withLock { s in
                while let a = s.reorder.popReady(notAfter: cutoff) { ready.append(a) }
                s.statistics.delivered += ready.count
            }
            if !ready.isEmpty { deliver(ready) }
        }
    }

    /// Reads one message of any subscribed topic.
    func handle(_ message: MQTTMessage) {
        // Arrival is when libmosquitto handed the message over, not when this task got to it.
        let now = message.receivedAt ?? clock.now()
        state.withLock { s in
            s.handled += 1
            s.lastArrival = now
        }
        let topic = message.topic
        let root = topics.root + "/"
        if topic.hasPrefix(root) {
            let rest = topic.dropFirst(root.count).split(separator: "/", omittingEmptySubsequences: false)
            if rest.count == 2, rest[0] == "sightings" {
                handleBatch(message.payload, receiver: String(rest[1]), now: now)
            } else if rest.count == 3, rest[0] == "receivers", rest[2] == "status" {
                handleStatus(message.payload, receiver: String(rest[1]), kind: .bluedot, now: now)
            } else if rest.count == 3, rest[0] == "receivers", rest[2] == "telemetry" {
                handleTelemetry(message.payload, receiver: String(rest[1]), now: now)
            }
            return
        }
        guard let prefix = settings.espresensePrefix else { return }
        if let node = ESPresenseReport.statusNode(topic: topic, prefix: prefix) {
            handleStatus(message.payload, receiver: node, kind: .espresense, now: now)
        } else if topic.hasPrefix(prefix + "/devices/") {
            handleESPresense(topic: topic, payload: message.payload, prefix: prefix, now: now)
        }
    }

    private func handleBatch(_ payload: [UInt8], receiver: String, now: Double) {
        let batch: SightingBatch
        do {
            batch = try ids.withLock { table throws(SightingBatchError) in
                try SightingBatch.decode(payload, maximumBytes: settings.maximumPayloadBytes, table: &table)
            }
        } catch {
            reject("sightings:\(error.kind)", topic: topics.sightings(receiver: receiver), why: "\(error)")
            return
        }
        guard batch.receiver == receiver else {
            reject("sightings:receiver-mismatch", topic: topics.sightings(receiver: receiver),
                   why: "batch of \"\(batch.receiver)\" on another receiver's topic")
            return
        }
        state.withLock { s in
            // Taken out of the table while it changes, so its clock's window is not copied on every batch.
            var r = s.receivers.removeValue(forKey: receiver) ?? newReceiver(receiver, kind: .bluedot)
            r.clock.add(sent: batch.clock, arrival: now)
            let offset = r.clock.offset ?? 0
            r.info.clockOffset = r.clock.offset
            if r.info.clockJitter == nil { r.info.clockJitter = r.clock.jitter }
            r.info.batches += 1
            if let expected = r.nextSequence, batch.sequence > expected {
                r.info.missedBatches += batch.sequence - expected
            }
            r.nextSequence = batch.sequence + 1
            s.statistics.batches += 1
            let receiverBeacons = known.value.beacons
            for var o in batch.sightings {
                // Another receiver's own advertisement: a link between two known places (ReceiverBeacon).
                guard let target = receiverBeacons[o.target] ?? devices.target(ofObservation: o.target) else {
                    s.statistics.strangers += 1
                    continue
                }
                o.target = target
                o.t += offset
                admit(o, arrivedAt: now, receiver: &r, state: &s)
            }
            count(&r, batch.sightings.count, now: now)
            s.receivers[receiver] = r
        }
    }

    private func handleESPresense(topic: String, payload: [UInt8], prefix: String, now: Double) {
        let report: ESPresenseReport
        do {
            report = try ESPresenseReport.parse(topic: topic, payload: payload, prefix: prefix)
        } catch {
            let kind = error.kindName.lowercased().split(separator: " ").joined(separator: "-")
            reject("espresense:\(kind)", topic: topic, why: "\(error)")
            return
        }
        // ESPresense reports carry no time: they are heard when they arrive. The firmware measures distance from
        // `rssi` against the device's `rssi@1m`; the engine measures against the node's model in the venue, so the
        // RSSI is moved by their difference: the same distance for the same report, in the venue's model.
        var rssi = report.rssi
        let receivers = self.known.value
        if let reference = report.referencePowerDBm, let model = receivers.measuredPower[report.node] {
            rssi += model - reference
        }
        // ESPresense's ids: `irk:…` and aliases map to registry devices, iBeacons to beacons; another node's own
        // advertisement (`node:<id>`, a node of the venue) or a BlueDot receiver's (`eddy:…`, its `ReceiverBeacon`)
        // is a link between two receivers at known places, which the engine learns the receivers' gains from
        // (docs/positioning.md, "Receivers that hear each other"); the rest (the firmware's fingerprints of
        // everyone's phones) are strangers.
        let target: String
        let canonical = Self.canonicalTarget(report.device)
        if let node = Self.nodeAdvertisement(report.device), receivers.receivers.contains(node) {
            target = node
        } else if let receiver = receivers.beacons[canonical] {
            target = receiver
        } else if let identified = devices.identify(reportedID: canonical).targetID {
            target = identified
        } else {
            state.withLock { $0.statistics.strangers += 1 }
            return
        }
        let o = Observation(t: now, anchor: report.node, target: target, rssiDBm: rssi,
                            txPowerDBm: report.referencePowerDBm)
        state.withLock { s in
            var r = s.receivers.removeValue(forKey: report.node) ?? newReceiver(report.node, kind: .espresense)
            admit(o, arrivedAt: now, receiver: &r, state: &s)
            count(&r, 1, now: now)
            s.receivers[report.node] = r
        }
    }

    /// The node id of an ESPresense node's own advertisement (`node:<id>`), nil for any other device.
    static func nodeAdvertisement(_ device: String) -> String? {
        guard device.hasPrefix("node:"), device.count > 5 else { return nil }
        return String(device.dropFirst(5))
    }

    /// ESPresense's id of an iBeacon (`iBeacon:<uuid>-<major>-<minor>`) or an Eddystone-UID (`eddy:<namespace>-<instance>`)
    /// as BlueDot's canonical id (`ibeacon:<uuid>:<major>:<minor>`, `eddystone:<namespace>:<instance>`), so a tag
    /// heard by BlueDot receivers and ESPresense nodes is one target, and a BlueDot receiver's own advertisement
    /// (`ReceiverBeacon`) heard by a node is a link; other ids as they are.
    static func canonicalTarget(_ device: String) -> String {
        let lower = device.lowercased()
        if lower.hasPrefix("eddy:") { return canonicalEddystone(lower) ?? device }
        guard lower.hasPrefix("ibeacon:") else { return device }
        let parts = lower.dropFirst("ibeacon:".count).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 7, [8, 4, 4, 4, 12].elementsEqual(parts.prefix(5).map(\.count)),
              parts.prefix(5).allSatisfy({ $0.allSatisfy(\.isHexDigit) }),
              let major = UInt16(parts[5]), let minor = UInt16(parts[6])
        else { return device }
        return "ibeacon:\(parts.prefix(5).joined(separator: "-")):\(major):\(minor)"
    }

    /// `eddy:<namespace>-<instance>` (lowercased) as `eddystone:<namespace>:<instance>`. ESPresense's firmware prints
    /// the namespace's fifth octet twice (its format string has eleven octets before the dash: `BleFingerprint.cpp`,
    /// `fingerprintServiceData`), so a 22-digit namespace whose fifth and sixth octets agree is read without the
    /// repeat; a firmware that prints the 20 digits is read as it is.
    private static func canonicalEddystone(_ lower: String) -> String? {
        let parts = lower.dropFirst("eddy:".count).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 12, parts.allSatisfy({ $0.allSatisfy(\.isHexDigit) }) else { return nil }
        var namespace = Array(parts[0])
        if namespace.count == 22 {
            guard namespace[8..<10] == namespace[10..<12] else { return nil }
            namespace.removeSubrange(10..<12)
        }
        guard namespace.count == 20 else { return nil }
        return "eddystone:\(String(namespace)):\(parts[1])"
    }

    private func handleStatus(_ payload: [UInt8], receiver: String, kind: ReceiverInfo.Kind, now: Double) {
        let text = String(decoding: payload.prefix(64), as: UTF8.self)
        guard payload.count <= 64, text == "online" || text == "offline" else {
            reject("status:malformed", topic: topic(ofStatus: receiver, kind: kind),
                   why: "expected online or offline")
            return
        }
        state.withLock { s in
            var r = s.receivers[receiver] ?? newReceiver(receiver, kind: kind)
            r.info.status = text
            r.info.lastMessage = now
            s.receivers[receiver] = r
        }
    }

    private func handleTelemetry(_ payload: [UInt8], receiver: String, now: Double) {
        guard payload.count <= 4096, case .object? = try? JSONValue.parse(payload) else {
            reject("telemetry:malformed", topic: topics.receiverTelemetry(receiver: receiver),
                   why: "expected a JSON object of at most 4096 bytes")
            return
        }
        state.withLock { s in
            var r = s.receivers[receiver] ?? newReceiver(receiver, kind: .bluedot)
            r.info.telemetry = String(decoding: payload, as: UTF8.self)
            r.info.lastMessage = now
            s.receivers[receiver] = r
        }
    }

    private func topic(ofStatus receiver: String, kind: ReceiverInfo.Kind) -> String {
        switch kind {
        case .bluedot: topics.receiverStatus(receiver: receiver)
        case .espresense: "\(settings.espresensePrefix ?? "espresense")/rooms/\(receiver)/status"
        }
    }

    private func newReceiver(_ id: String, kind: ReceiverInfo.Kind) -> Receiver {
        let known = self.known.value.receivers.contains(id)
        if !known {
            logger.warning("a receiver the venue does not know; its sightings are not used",
                           metadata: ["receiver": "\(id)", "kind": "\(kind.rawValue)"])
        }
        return Receiver(info: ReceiverInfo(id: id, kind: kind, known: known),
                        clock: ClockOffsetEstimator(windowSeconds: settings.clockWindowSeconds))
    }

    private func admit(_ o: Observation, arrivedAt: Double, receiver r: inout Receiver, state s: inout State) {
        s.statistics.sightings += 1
        if !r.info.known { s.statistics.unknownReceiverSightings += 1 }
        switch s.reorder.insert(Arrival(o, arrivedAt: arrivedAt), t: o.t) {
        case .admitted(let reordered):
            if reordered { s.statistics.reordered += 1 }
        case .late:
            s.statistics.late += 1
            r.info.late += 1
        }
    }

    private func count(_ r: inout Receiver, _ n: Int, now: Double) {
        r.info.sightings += n
        r.info.lastHeard = now
        r.info.lastMessage = now
        let start = r.rateWindowStart ?? now
        r.rateWindowStart = start
        r.rateWindowCount += n
        if now - start >= 5 {
            r.info.sightingsPerSecond = Double(r.rateWindowCount) / (now - start)
            // The jitter sorts the clock's recent differences: once a window, not once a batch.
            r.info.clockJitter = r.clock.jitter
            r.rateWindowStart = now
            r.rateWindowCount = 0
        }
    }

    /// Counts a skipped payload and logs the first of each kind.
    private func reject(_ kind: String, topic: String, why: String) {
        let first = state.withLock { s in
            s.statistics.rejected[kind, default: 0] += 1
            return s.loggedKinds.insert(kind).inserted
        }
        if first {
            logger.warning("payload skipped (further ones of this kind are only counted)",
                           metadata: ["kind": "\(kind)", "topic": "\(topic)", "error": "\(why)"])
        }
    }
}
