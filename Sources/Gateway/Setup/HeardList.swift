import BeaconLocation
import BlueDotCore
import Devices
import JSON
import Positioning

/// What the gateway hears now, for the set-up page (`GET /api/heard`): the beacons, registry devices and
/// receivers of the last `windowSeconds`, strongest first, so the user finds "the one next to me" and places it.
///
/// It sees every batch of observations before the engine does (the input runner's tap). In self mode a batch's
/// anchors are what is heard (beacons, or advertisers the venue names); in tag mode its anchors are the receivers
/// and its targets the devices and beacons they hear. An advertiser that is neither a beacon, nor a registry
/// device, nor one of the venue's anchors is a stranger: it is never listed or kept, only counted, from the device
/// identifier's own count of strangers' reports (`DeviceIdentifier.Statistics.strangers`).
final class HeardList: Sendable {
    enum Kind: String, Sendable {
        case beacon, device, anchor, receiver
    }

    private struct Entry {
        var kind: Kind
        /// Exponentially smoothed RSSI of its reports, dBm.
        var rssi: Double
        /// Clock time of its last report.
        var at: Double
    }

    /// The ids the list tells apart, for one revision of the site's files (made again only when they change: a
    /// batch comes many times a second).
    private struct Known {
        var revision: Int
        var anchors: Set<String>
        var registry: Set<String>
    }

    private struct State {
        var known: Known?
        var entries: [String: Entry] = [:]
        /// (clock time, the identifier's stranger count then), about once a second over the window.
        var strangerCounts: [(at: Double, count: Int)] = []
    }

    /// How far back the list looks, seconds.
    let windowSeconds: Double
    /// The most ids listed; what hears more keeps the strongest.
    static let limit = 500
    private let mode: SightingMapper.Mode
    private let devices: DeviceIdentifier
    private let files: SiteFiles
    private let clock: any BlueDotClock
    private let state = LockedValue(State())

    init(mode: SightingMapper.Mode, devices: DeviceIdentifier, files: SiteFiles, clock: any BlueDotClock,
         windowSeconds: Double = 15) {
        self.mode = mode
        self.devices = devices
        self.files = files
        self.clock = clock
        self.windowSeconds = windowSeconds
    }

    /// Takes one batch (the runner's tap).
    func take(_ batch: ObservationBatch) {
        let now = clock.now()
        let revision = files.revision
        let fresh = state.withLock { $0.known?.revision == revision }
        let known = fresh ? nil : Known(revision: revision, anchors: Set(files.venue.anchors.map(\.id)),
                                        registry: Set(files.registry.devices.map(\.id)))
        state.withLock { s in
            if let known { s.known = known }
            let anchors = s.known?.anchors ?? [], registry = s.known?.registry ?? []
            func kind(of id: String, asAnchor: Bool) -> Kind? {
                if asAnchor, mode == .tag { return .receiver }
                if anchors.contains(id) { return .anchor }
                if registry.contains(id) { return .device }
                if ["ibeacon:", "eddystone:", "altbeacon:"].contains(where: id.hasPrefix) { return .beacon }
                return nil
            }
            for arrival in batch {
                let o = arrival.observation
                let heard = mode == .self ? [(o.anchor, true)] : [(o.anchor, true), (o.target, false)]
                for (id, asAnchor) in heard {
                    guard let kind = kind(of: id, asAnchor: asAnchor) else { continue }
                    if var entry = s.entries[id] {
                        entry.rssi += 0.3 * (o.rssiDBm - entry.rssi)
                        entry.at = now
                        entry.kind = kind
                        s.entries[id] = entry
                    } else if s.entries.count < Self.limit {
                        s.entries[id] = Entry(kind: kind, rssi: o.rssiDBm, at: now)
                    }
                }
            }
            sample(&s, now: now)
        }
    }

    /// Whether `id` is on the list now (heard within the window).
    func hears(_ id: String) -> Bool {
        let now = clock.now()
        return state.withLock { s in s.entries[id].map { now - $0.at <= windowSeconds } ?? false }
    }

    /// The list as JSON: `{"heard": [...], "strangers": N}`, strongest first.
    func json(names: [String: String]) -> String {
        let now = clock.now()
        let anchors = Set(files.venue.anchors.map(\.id))
        let (entries, strangers) = state.withLock { s -> ([(String, Entry)], Int) in
            s.entries = s.entries.filter { now - $0.value.at <= windowSeconds }
            sample(&s, now: now)
            let oldest = s.strangerCounts.first?.count ?? 0
            let newest = s.strangerCounts.last?.count ?? oldest
            return (s.entries.sorted { ($0.value.rssi, $1.key) > ($1.value.rssi, $0.key) }, max(0, newest - oldest))
        }
        let items = entries.map { id, e in
            var object = JSONObjectWriter()
            object.string("id", id)
            object.string("kind", e.kind.rawValue)
            if let name = names[id] { object.string("name", name) }
            object.raw("rssi", "\((e.rssi * 10).rounded() / 10)")
            object.raw("age", "\(max(0, (now - e.at) * 10).rounded() / 10)")
            object.raw("placed", anchors.contains(id) ? "true" : "false")
            return object.finish()
        }
        return "{\"heard\":[" + items.joined(separator: ",") + "],\"strangers\":\(strangers),"
            + "\"windowSeconds\":\(Int(windowSeconds))}"
    }

    /// Keeps the identifier's stranger count about once a second, over the window.
    private func sample(_ s: inout State, now: Double) {
        if let last = s.strangerCounts.last, now - last.at < 1 { return }
        s.strangerCounts.append((now, devices.statistics.strangers))
        s.strangerCounts.removeAll { now - $0.at > windowSeconds }
    }
}
