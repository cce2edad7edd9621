import BlueDotCore


/// Many moving locations pushed to observers (tag mode), after MapsIndoors' `MPLocationSource`.
///
/// Producers call `update(_:)`, `delete(_:)` and `setStatus(_:)`; a target not updated for
/// `deleteAfterSeconds` on the injected clock is deleted by `expireStale()`, which `runExpiry(everySeconds:)`
/// calls periodically. Consumers follow `events` (a new ordered stream per access, starting with the current
/// status and, when there are any, the current locations) or register a `LocationSourceObserver`. Subclasses may
/// relay and transform another source, like `RoomOccupancySource`.
open class LocationSource: @unchecked Sendable {
    // @unchecked: the lets are Sendable and `state` guards the rest.
    private struct State {
        var status: LocationSourceStatus = .initialising
        var locations: [String: Location] = [:]
        var lastHeard: [String: Double] = [:]
        var observers: [ObjectIdentifier: Task<Void, Never>] = [:]
    }

    /// The source's id, unique among the sources a map shows.
    public let id: String
    /// Seconds without an update after which a target is deleted.
    public let deleteAfterSeconds: Double
    /// Where time comes from.
    public let clock: any BlueDotClock
    private let state = LockedValue(State())
    private let broadcast = Broadcast<LocationSourceEvent>()

    /// Creates a source in status `initialising`.
    public init(id: String, deleteAfterSeconds: Double = 30, clock: any BlueDotClock = SystemClock()) {
        self.id = id
        self.deleteAfterSeconds = deleteAfterSeconds
        self.clock = clock
    }

    deinit {
        state.withLock { $0.observers.values.forEach { $0.cancel() } }
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
        state.withLock { s in
            guard s.status != status else { return }
            s.status = status
            broadcast.yield(.statusChanged(status))
        }
    }

    /// Stores new locations (keyed by `targetID`), marks them heard now, and tells observers.
    public final func update(_ locations: [Location]) {
        guard !locations.isEmpty else { return }
        let now = clock.now()
        state.withLock { s in
            for location in locations {
                s.locations[location.targetID] = location
                s.lastHeard[location.targetID] = now
            }
            broadcast.yield(.updated(locations))
        }
    }

    /// Removes targets and tells observers about the ones that existed.
    public final func delete(_ targetIDs: [String]) {
        state.withLock { s in
            let known = targetIDs.filter { s.locations.removeValue(forKey: $0) != nil }
            known.forEach { s.lastHeard[$0] = nil }
            if !known.isEmpty { broadcast.yield(.deleted(known)) }
        }
    }

    /// Deletes every target not updated for more than `deleteAfterSeconds`; returns their ids, sorted.
    @discardableResult
    public final func expireStale() -> [String] {
        let now = clock.now()
        let expired = state.withLock { s in
            s.lastHeard.filter { now - $0.value > deleteAfterSeconds }.keys.sorted()
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

    /// Registers an observer: its callbacks run in event order on a task of its own, starting with the current
    /// status. The source holds the observer until `removeObserver(_:)`.
    public final func addObserver(_ observer: any LocationSourceObserver) {
        let stream = events
        let task = Task { [weak self] in
            for await event in stream {
                guard let self else { return }
                switch event {
                case .updated(let locations): observer.onLocationsUpdated(locations, source: self)
                case .deleted(let ids): observer.onLocationsDeleted(ids, source: self)
                case .statusChanged(let status): observer.onStatusChanged(status, source: self)
                }
            }
        }
        let previous = state.withLock { $0.observers.updateValue(task, forKey: ObjectIdentifier(observer)) }
        previous?.cancel()
    }

    /// Stops calling an observer.
    public final func removeObserver(_ observer: any LocationSourceObserver) {
        state.withLock { $0.observers.removeValue(forKey: ObjectIdentifier(observer)) }?.cancel()
    }
}
