import BlueDotCore
import Formats
import JSON
import LocationBus
import Logging
import Positioning

/// A view of many sites (issue 44, `docs/site.md`, "Many buildings"): the locations that the sites' solvers publish,
/// read from one broker (a campus broker that the buildings' brokers bridge to), as one `LocationSource`. It solves
/// nothing: every location is a solver's, passed on with its `site`.
///
/// For each site named (or every site, `+`) it subscribes to the solver's `locations/+`, `status` and `venue`
/// (formats.md, "A site over MQTT"), and to `bridge`, where the building broker's bridge to this broker reports its
/// state (mosquitto's `notification_topic`: `1` up, `0` down, the `0` as the bridge's last will here).
///
/// - One target, one answer: a target is keyed by its id across sites. A current fix from any site replaces what is
///   held; a last-known one replaces only a fix of its own site (a tag walked from one building into the next: the
///   first building's last word about it does not win over the second's live fixes).
/// - Nothing twice: a fix no newer than the last one taken from its site for its target (a retained message sent
///   again when a bridge comes back, or when this view reconnects) is counted as a repeat and dropped.
/// - Stale sites: when a site's bridge reports down, or its solver `offline`, each of its targets is updated once
///   as last known (its last fix, `lastKnown`, `silentFor` counted from its arrival), and `sites` says so; the next
///   fixes from the site make them current again.
/// - Bad payloads are counted by kind, logged once per kind and skipped.
public final class CampusSource: LocationSource, LocationProducer, @unchecked Sendable {
    /// What the view knows of one site.
    public struct SiteState: Sendable, Hashable {
        /// The site's name (one topic level).
        public var site: String
        /// The solver's status (`online`, `offline`), nil until one is read.
        public var solver: String?
        /// The bridge's state from its notifications: true up, false down, nil when none was read (a site on this
        /// broker itself, or a bridge without notifications).
        public var bridgeUp: Bool?
        /// The venue the solver published, once read.
        public var venue: Venue?
        /// Why the published venue could not be read, when it could not.
        public var venueError: String?
        /// Locations taken from the site.
        public var locations = 0
        /// Clock time of the last message from the site.
        public var lastMessageAt: Double?

        /// True while the bridge is down or the solver offline: the site's targets are shown last known.
        public var isStale: Bool { solver == "offline" || bridgeUp == false }

        init(site: String) { self.site = site }
    }

    /// Counters of the view.
    public struct Statistics: Sendable, Hashable {
        /// Messages read.
        public var messages = 0
        /// Locations taken.
        public var locations = 0
        /// Locations dropped as repeats of one already taken.
        public var repeats = 0
        /// Locations of a site that lost to a newer answer from another site.
        public var superseded = 0
        /// Payloads skipped, by kind (`location:malformed`, `venue:malformed`, `status:malformed`, ...).
        public var rejected: [String: Int] = [:]

        /// All zero.
        public init() {}
    }

    private struct State {
        var sites: [String: SiteState] = [:]
        /// Per target, the timestamp of the last fix taken from each site.
        var taken: [String: [String: Double]] = [:]
        /// Per target, the clock time its held location arrived.
        var arrivedAt: [String: Double] = [:]
        var statistics = Statistics()
        var loggedKinds: Set<String> = []
        var stopped = false
        var started = false
    }

    /// The client this view reads through; `run` starts it and `stop` disconnects it.
    public let client: MQTTClient
    /// The sites named, or `["+"]` for every site on the broker.
    public let sitePatterns: [String]
    /// The view's own name and topics, when it publishes its answers as a site of its own (a `LocationPublisher`
    /// and Home Assistant's discovery on `client`); its own messages are never read back as a site's.
    public let ownTopics: SiteTopics?
    private let farewell: [MQTTMessage]
    private let state: LockedValue<State>
    private let logger: Logger

    /// A view of `sites` (names, or `["+"]`) through `client`; a target no site has spoken of for `deleteAfterSeconds`
    /// is deleted.
    public init(client: MQTTClient, sites: [String], ownTopics: SiteTopics? = nil, farewell: [MQTTMessage] = [],
                deleteAfterSeconds: Double = 86_400, clock: any BlueDotClock = SystemClock(), logger: Logger) {
        self.client = client
        sitePatterns = sites
        self.ownTopics = ownTopics
        self.farewell = farewell
        // The sites named are listed before they say anything.
        var first = State()
        for site in sites where site != "+" { first.sites[site] = SiteState(site: site) }
        state = LockedValue(first)
        self.logger = logger
        super.init(id: "campus", deleteAfterSeconds: deleteAfterSeconds, clock: clock)
    }

    /// The topic filters read: per site pattern, its locations, solver status, venue and bridge state.
    public var subscriptions: [String] {
        sitePatterns.flatMap { site in
            ["bluedot/\(site)/locations/+", "bluedot/\(site)/status", "bluedot/\(site)/venue", "bluedot/\(site)/bridge"]
        }
    }

    /// Every site heard of (or named), by name.
    public var sites: [SiteState] { state.withLock { $0.sites.values.sorted { $0.site < $1.site } } }

    /// The view's counters.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Subscribes, connects and reads until `stop()`; the client reconnects by itself while the broker is away.
    public func run() async throws {
        let first = state.withLock { s -> Bool in
            guard !s.stopped, !s.started else { return false }
            s.started = true
            return true
        }
        guard first else { return }
        for filter in subscriptions { try client.subscribe(filter, qos: 1) }
        try client.start()
        setStatus(.available)
        let events = client.events
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events {
                    switch event {
                    case .connected(let level):
                        self.logger.notice("connected to the campus broker", metadata: [
                            "broker": "\(self.client.options.url)", "sites": "\(self.sitePatterns.joined(separator: ","))",
                            "mqtt": "\(level)",
                        ])
                    case .disconnected(let reason):
                        self.logger.warning("broker connection lost; reconnecting", metadata: ["reason": "\(reason)"])
                    case .message(let message):
                        self.handle(message)
                    }
                }
            }
            group.addTask { await self.runExpiry(everySeconds: 60) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Disconnects; `run` returns.
    public func stop() async {
        state.withLock { $0.stopped = true }
        client.stop(farewell: farewell)
        setStatus(.inactive)
    }

    /// Reads one message of a subscribed topic.
    func handle(_ message: MQTTMessage) {
        let now = message.receivedAt ?? clock.now()
        let parts = message.topic.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0] == "bluedot" else { return }
        let site = String(parts[1])
        guard site != ownTopics?.site else { return }
        state.withLock { s in
            s.statistics.messages += 1
            s.sites[site, default: SiteState(site: site)].lastMessageAt = now
        }
        switch (parts.count, parts[2]) {
        case (4, "locations"): take(location: message.payload, site: site, now: now)
        case (3, "status"): take(status: message.payload, site: site, now: now)
        case (3, "venue"): take(venue: message.payload, site: site)
        case (3, "bridge"): take(bridge: message.payload, site: site, now: now)
        default: break
        }
    }

    private func take(location payload: [UInt8], site: String, now: Double) {
        // An empty retained message clears the topic: nothing to show.
        guard !payload.isEmpty else { return }
        var fix: Location
        do {
            fix = try LocationReader.parse(payload)
        } catch {
            reject("location:malformed", site: site, why: error.located)
            return
        }
        fix.site = site
        let accepted = state.withLock { s -> Bool in
            if let last = s.taken[fix.targetID]?[site], fix.timestamp <= last {
                s.statistics.repeats += 1
                return false
            }
            s.taken[fix.targetID, default: [:]][site] = fix.timestamp
            if fix.lastKnown, let held = locations[fix.targetID], held.site != site {
                s.statistics.superseded += 1
                return false
            }
            s.statistics.locations += 1
            s.sites[site]?.locations += 1
            s.arrivedAt[fix.targetID] = now
            return true
        }
        if accepted { update([fix]) }
    }

    private func take(status payload: [UInt8], site: String, now: Double) {
        let text = String(decoding: payload, as: UTF8.self)
        guard text == "online" || text == "offline" else {
            reject("status:malformed", site: site, why: "expected online or offline")
            return
        }
        setStale(site: site, now: now) { $0.solver = text }
    }

    private func take(venue payload: [UInt8], site: String) {
        do {
            let venue = try VenueLoader.parse(payload, file: "bluedot/\(site)/venue")
            state.withLock { s in
                s.sites[site]?.venue = venue
                s.sites[site]?.venueError = nil
            }
        } catch {
            state.withLock { $0.sites[site]?.venueError = "\(error)" }
            reject("venue:malformed", site: site, why: "\(error)")
        }
    }

    private func take(bridge payload: [UInt8], site: String, now: Double) {
        let text = String(decoding: payload, as: UTF8.self)
        guard text == "1" || text == "0" else {
            reject("bridge:malformed", site: site, why: "expected 1 or 0")
            return
        }
        setStale(site: site, now: now) { $0.bridgeUp = text == "1" }
    }

    /// Applies `change` to the site; when it makes the site stale, its current targets become last known.
    private func setStale(site: String, now: Double, _ change: (inout SiteState) -> Void) {
        let (wasStale, isStale) = state.withLock { s -> (Bool, Bool) in
            var entry = s.sites[site] ?? SiteState(site: site)
            let was = entry.isStale
            change(&entry)
            s.sites[site] = entry
            return (was, entry.isStale)
        }
        guard isStale, !wasStale else {
            if wasStale, !isStale { logger.notice("site back", metadata: ["site": "\(site)"]) }
            return
        }
        logger.warning("site stale: its targets are shown last known", metadata: ["site": "\(site)"])
        let arrived = state.withLock { $0.arrivedAt }
        let held = locations.values.filter { $0.site == site && !$0.lastKnown }.map { fix in
            var last = fix
            last.lastKnown = true
            last.silentForSeconds = max(0, now - (arrived[fix.targetID] ?? now))
            return last
        }
        if !held.isEmpty { update(held.sorted { $0.targetID < $1.targetID }) }
    }

    private func reject(_ kind: String, site: String, why: String) {
        let first = state.withLock { s -> Bool in
            s.statistics.rejected[kind, default: 0] += 1
            return s.loggedKinds.insert(kind).inserted
        }
        if first {
            logger.warning("skipped a payload (logged once per kind, counted in /metrics)",
                           metadata: ["kind": "\(kind)", "site": "\(site)", "reason": "\(why)"])
        }
    }
}
