import BlueDotCore
import Positioning

/// Many moving locations pushed to observers (tag mode), after MapsIndoors' `MPLocationSource`.
///
/// Producers call `update(_:)`, `delete(_:)` and `setStatus(_:)`; a target not updated for
/// `deleteAfterSeconds` on the injected clock is deleted by `expireStale()`, which `runExpiry(everySeconds:)`
/// calls periodically.
///
/// With a `PresenceRule` the source is also the one place presence is decided: every location it carries has
/// `presence` (and `silentFor` while the target is silent), a target stays, last known, while it is silent and
/// `home`, and `expireStale()` turns it `not_home` when its silence passes the rule's timeout for where it fell silent
/// (an update, last known and in no room, and the leave of its room), and deletes it `deleteAfterSeconds` later.
///
/// The source is the one place where room changes are derived (`RoomTransitions`, from each location's `room`): it
/// sees every location and every deletion, so entries follow the update that made them and a target forgotten in a
/// room leaves it before it is deleted (`LocationSourceEvent.roomsChanged`). Consumers follow `events` (a new ordered
/// stream per access, starting with the current status and, when there are any, the current locations, read on the
/// consumer's own task) or register a `LocationSourceObserver` (called in place, on the producer's thread).
/// Subclasses may relay and transform another source, like `RoomOccupancySource`.
open class LocationSource: @unchecked Sendable {
    // @unchecked: the lets are Sendable and `state` guards the rest.
    private struct State {
        var status: LocationSourceStatus = .initialising
        var locations: [String: Location] = [:]
        var lastHeard: [String: Double] = [:]
        var rooms = RoomTransitions()
        var presence: [String: Heard] = [:]
        var rule: PresenceRule?
    }

    /// Where a target stands with its presence rule.
    ///
    /// The silence is counted on the source's clock, from when its last current location reached the source. How it
    /// moved before is judged on its locations' own timestamps (`fixAt`, `exitAt`, `walkedAt`, `firstAt`, `track`):
    /// a location reaches the source some time after it was made, and that delay varies (a busy gateway, a
    /// reorder window, a broker between solver and source). On the household day's fast clock (60 times) a 50 ms
    /// stall of the solver is 3 s, and arrival times made walkers stand still and sleepers walk.
    private struct Heard {
        /// Clock time of its last current (not `lastKnown`) location.
        var at: Double
        /// Timestamp of that location.
        var fixAt: Double
        /// Timestamp of its last current location in or beside an exit.
        var exitAt: Double?
        /// Current locations inside another room since then (`PresenceRule.isInside`).
        var insideSinceExit = 0
        /// Timestamp of its last current location at walking speed (`PresenceRule.walkingSpeed`) that came within
        /// `PresenceRule.walkingMemorySeconds` of another at walking speed.
        var walkedAt: Double?
        /// Timestamp of its last current location at walking speed.
        var fastAt: Double?
        /// Timestamp of the first current location since it was last `not_home` (or first seen).
        var firstAt: Double?
        /// Its current locations of the last `exitMemorySeconds` by their timestamps, oldest first
        /// (`PresenceRule.isClosingOnExit`).
        var track: [(at: Double, x: Double, y: Double, floor: Int?)] = []
        var presence = Presence.home
        /// Clock time it went `not_home`.
        var awayAt: Double?
    }

    /// The source's id, unique among the sources a map shows.
    public let id: String
    /// Seconds without an update after which a target is deleted.
    public let deleteAfterSeconds: Double
    /// Where time comes from.
    public let clock: any BlueDotClock
    /// The rule that decides the targets' presence; nil: the source does not. `use(presence:)` replaces it.
    public var presenceRule: PresenceRule? { state.withLock { $0.rule } }
    private let state: LockedValue<State>
    /// The observers, behind the lock held while they are called: one change reaches them at a time, in the order
    /// the changes were made.
    private let observers = LockedValue<[(id: ObjectIdentifier, observer: any LocationSourceObserver)]>([])
    private let broadcast = Broadcast<LocationSourceEvent>()

    /// Creates a source in status `initialising`; with `presence`, it decides its targets' presence.
    public init(id: String, deleteAfterSeconds: Double = 30, clock: any BlueDotClock = SystemClock(),
                presence: PresenceRule? = nil) {
        self.id = id
        self.deleteAfterSeconds = deleteAfterSeconds
        self.clock = clock
        state = LockedValue(State(rule: presence))
    }

    /// Decides presence by `rule` from the next location on (a venue reloaded with other exits); what targets
    /// already are stays until their next location or their silence under the new rule says otherwise.
    public final func use(presence rule: PresenceRule) {
        state.withLock { $0.rule = rule }
    }

    deinit {
        broadcast.finish()
    }

    /// The current status.
    public final var status: LocationSourceStatus { state.withLock { $0.status } }

    /// The current location of every target, by target id.
    public final var locations: [String: Location] { state.withLock { $0.locations } }

    /// A new stream of events; it starts with the current status and the current locations (when any).
    public final var events: AsyncStream<LocationSourceEvent> {
        state.withLock { s in
            var initial: [LocationSourceEvent] = [.statusChanged(s.status)]
            if !s.locations.isEmpty {
                initial.append(.updated(s.locations.values.sorted { $0.targetID < $1.targetID }))
            }
            return broadcast.subscribe(initial: initial)
        }
    }

    /// Sets the status and tells observers when it changed.
    public final func setStatus(_ status: LocationSourceStatus) {
        change { s in
            guard s.status != status else { return [] }
            s.status = status
            return [.statusChanged(status)]
        }
    }

    /// Stores new locations (keyed by `targetID`), marks them heard now, and tells observers: the update, then
    /// the room changes it made. With a presence rule, a current location makes its target `home`, and each
    /// location carries the target's presence (and `silentFor`, when it is last known).
    public final func update(_ locations: [Location]) {
        guard !locations.isEmpty else { return }
        let now = clock.now()
        change { s in
            var changes: [RoomChange] = []
            var told: [Location] = []
            told.reserveCapacity(locations.count)
            for var location in locations {
                if let rule = s.rule { Self.judge(&location, rule: rule, now: now, state: &s) }
                s.locations[location.targetID] = location
                s.lastHeard[location.targetID] = now
                if let change = s.rooms.observe(location) { changes.append(change) }
                told.append(location)
            }
            return changes.isEmpty ? [.updated(told)] : [.updated(told), .roomsChanged(changes)]
        }
    }

    /// Stamps `location` with its target's presence under `rule`, at clock time `now`.
    private static func judge(_ location: inout Location, rule: PresenceRule, now: Double, state s: inout State) {
        var heard = s.presence[location.targetID] ?? Heard(at: now, fixAt: location.timestamp)
        if !location.lastKnown {
            // Motion on the location's own time (`Heard`), the silence from its arrival here.
            let t = location.timestamp
            if heard.presence == .notHome { heard = Heard(at: now, fixAt: t) }
            heard.at = now
            heard.fixAt = t
            heard.awayAt = nil
            if heard.firstAt == nil { heard.firstAt = t }
            heard.track.removeAll { t - $0.at > rule.exitMemorySeconds }
            let earliest = heard.track.first
            // Only a fix that knows where it is (the filter's first fix of a target heard again spans the house).
            if location.horizontalAccuracyMeters <= PresenceRule.approachRadiusMeters {
                heard.track.append((t, location.x, location.y, location.floor))
            }
            // A lone fix at walking speed is the filter's answer to one jump of its fixes, not a walk.
            if (location.speedMetersPerSecond ?? 0) >= PresenceRule.walkingSpeed {
                if let fast = heard.fastAt, t - fast <= PresenceRule.walkingMemorySeconds { heard.walkedAt = t }
                heard.fastAt = t
            }
            // A track's first seconds are the solver converging on it, not a walk.
            let settled = t - (heard.firstAt ?? t) >= PresenceRule.settlingSeconds
            let walking = settled && (heard.walkedAt.map { t - $0 <= PresenceRule.walkingMemorySeconds } ?? false)
            // A walk the filter's speed missed (a track starting again as its owner walks off) shows in the fixes.
            let closing = (walking || (settled && rule.passesTowardExit(heard.track))) && earliest.map {
                rule.isClosingOnExit(from: ($0.x, $0.y, $0.floor), seconds: t - $0.at, to: location)
            } ?? false
            if closing || rule.isAtExit(location, walking: walking) {
                heard.exitAt = t
                heard.insideSinceExit = 0
            } else if heard.exitAt != nil, rule.isInside(location) {
                // Back inside after a fix at the exit: after a few such fixes, or one that turns back into the
                // room the engine holds (`PresenceRule.isTurningBack`), that was no departure.
                heard.insideSinceExit += 1
                if heard.insideSinceExit >= PresenceRule.insideFixesToReturn || rule.isTurningBack(location) {
                    heard.exitAt = nil
                }
            }
        }
        location.presence = heard.presence
        location.silentForSeconds = location.lastKnown ? max(0, now - heard.at) : nil
        // Gone is in no room: the engine's last-known fixes after `not_home` do not enter one again.
        if heard.presence == .notHome { location.room = nil }
        s.presence[location.targetID] = heard
    }

    /// Removes targets and tells observers about the ones that existed: the leaves of those that were in a room,
    /// then the deletion.
    public final func delete(_ targetIDs: [String]) {
        change { s in
            let known = targetIDs.filter { s.locations.removeValue(forKey: $0) != nil }
            guard !known.isEmpty else { return [] }
            known.forEach {
                s.lastHeard[$0] = nil
                s.presence[$0] = nil
            }
            let leaves = known.compactMap { s.rooms.forget($0) }
            return leaves.isEmpty ? [.deleted(known)] : [.roomsChanged(leaves), .deleted(known)]
        }
    }

    /// Applies a change to the state and hands the events it makes to the streams and then to every observer, on
    /// the calling thread. Under the observers' lock, so they see changes one at a time and in the order they
    /// were made, even when several threads make them.
    private func change(_ body: (inout State) -> [LocationSourceEvent]) {
        observers.withLock { observers in
            let made = state.withLock { s -> [LocationSourceEvent] in
                let events = body(&s)
                for event in events { broadcast.yield(event) }
                return events
            }
            for event in made {
                for (_, observer) in observers { Self.deliver(event, to: observer, from: self) }
            }
        }
    }

    private static func deliver(_ event: LocationSourceEvent, to observer: any LocationSourceObserver,
                                from source: LocationSource) {
        switch event {
        case .updated(let locations): observer.onLocationsUpdated(locations, source: source)
        case .deleted(let ids): observer.onLocationsDeleted(ids, source: source)
        case .roomsChanged(let changes): observer.onRoomsChanged(changes, source: source)
        case .statusChanged(let status): observer.onStatusChanged(status, source: source)
        }
    }

    /// Deletes every target not updated for more than `deleteAfterSeconds`; returns their ids, sorted. With a
    /// presence rule: targets silent for their timeout go `not_home` (one update each, and the leave of their room),
    /// the `silentFor` of the others is brought up to now, and only targets `not_home` for more than
    /// `deleteAfterSeconds` are deleted.
    @discardableResult
    public final func expireStale() -> [String] {
        let now = clock.now()
        change { s in
            guard let rule = s.rule else { return [] }
            var away: [Location] = []
            var leaves: [RoomChange] = []
            for (target, heard) in s.presence.sorted(by: { $0.key < $1.key }) {
                guard heard.presence == .home, var location = s.locations[target] else { continue }
                let silent = max(0, now - heard.at)
                let leaving = heard.exitAt.map { heard.fixAt - $0 <= rule.exitMemorySeconds } ?? false
                if silent >= rule.timeout(leaving: leaving) {
                    location.presence = .notHome
                    location.lastKnown = true
                    location.silentForSeconds = silent
                    location.room = nil
                    s.presence[target] = Heard(at: heard.at, fixAt: heard.fixAt, exitAt: heard.exitAt,
                                               presence: .notHome, awayAt: now)
                    s.locations[target] = location
                    away.append(location)
                    if let leave = s.rooms.forget(target) { leaves.append(leave) }
                } else if location.lastKnown {
                    location.silentForSeconds = silent
                    s.locations[target] = location
                }
            }
            guard !away.isEmpty else { return [] }
            return leaves.isEmpty ? [.updated(away)] : [.updated(away), .roomsChanged(leaves)]
        }
        let expired = state.withLock { s in
            guard s.rule != nil else {
                return s.lastHeard.filter { now - $0.value > deleteAfterSeconds }.keys.sorted()
            }
            return s.presence.filter { _, heard in heard.awayAt.map { now - $0 > deleteAfterSeconds } ?? false }
                .keys.sorted()
        }
        delete(expired)
        return expired
    }

    /// Calls `expireStale()` every `everySeconds` on the clock until the task is cancelled.
    public final func runExpiry(everySeconds: Double) async {
        var next = clock.now() + everySeconds
        while (try? await clock.sleep(until: next)) != nil {
            expireStale()
            next += everySeconds
        }
    }

    /// Registers an observer: it is told the current status (and the current locations, when there are any)
    /// at once, then every change, in order, called on the thread that makes the change (the spine's input,
    /// the expiry sweep) before that call returns. Callbacks must therefore be quick and must not block (queue
    /// slow work, as the history does), nor change this source or its observers (that would wait on itself).
    /// Registering an observer again replaces it. The source holds the observer until `removeObserver(_:)`.
    ///
    /// Calling observers in place, rather than on a task per observer, spares the daemon a thread wake-up per
    /// observer for every fix (`docs/gateway.md`, "Figures"); a consumer that wants its own task reads `events`.
    public final func addObserver(_ observer: any LocationSourceObserver) {
        let id = ObjectIdentifier(observer)
        observers.withLock { observers in
            observers.removeAll { $0.id == id }
            observers.append((id, observer))
            let (status, current) = state.withLock { s in
                (s.status, s.locations.values.sorted { $0.targetID < $1.targetID })
            }
            observer.onStatusChanged(status, source: self)
            if !current.isEmpty { observer.onLocationsUpdated(current, source: self) }
        }
    }

    /// Stops calling an observer: once this returns it is not called again (a change being delivered on another
    /// thread finishes first). Not from one of this source's callbacks.
    public final func removeObserver(_ observer: any LocationSourceObserver) {
        let id = ObjectIdentifier(observer)
        observers.withLock { $0.removeAll { $0.id == id } }
    }
}
