import BlueDotCore


/// A source that relays another: it follows people's locations upstream and publishes one location per room, at
/// the room's centre, with `occupancy` (people inside) and `busy` (`true` at or above `busyThreshold`) attributes.
///
/// Rooms are axis-aligned rectangles in the upstream's local metres, optionally on one floor. A room is
/// published when its occupancy changes (and once, empty, when relaying starts); rooms are never deleted. The
/// status mirrors the upstream's.
public final class RoomOccupancySource: LocationSource, @unchecked Sendable {
    /// One room: an id, a rectangle and an optional floor.
    public struct Room: Sendable, Hashable {
        /// The room's id, used as the published location's `targetID`.
        public var id: String
        /// The room's outline, local metres.
        public var extent: MapExtent
        /// The floor, or `nil` to match people on any floor.
        public var floor: Int?

        /// Creates a room.
        public init(id: String, extent: MapExtent, floor: Int? = nil) {
            self.id = id
            self.extent = extent
            self.floor = floor
        }

        /// True when the location is inside the room.
        public func contains(_ location: Location) -> Bool {
            if let floor, let other = location.floor, floor != other { return false }
            return extent.contains(MapPoint(x: location.x, y: location.y))
        }
    }

    /// The rooms, in the order given.
    public let rooms: [Room]
    /// The source relayed.
    public let upstream: LocationSource
    /// Occupancy at which a room counts as busy.
    public let busyThreshold: Int
    private let relay = LockedValue<(task: Task<Void, Never>?, people: [String: Location], counts: [String: Int])>(
        (nil, [:], [:]))

    /// Creates a relay over `upstream`; call `start()` to begin.
    public init(id: String, upstream: LocationSource, rooms: [Room], busyThreshold: Int = 1,
                clock: any BlueDotClock = SystemClock()) {
        self.rooms = rooms
        self.upstream = upstream
        self.busyThreshold = busyThreshold
        super.init(id: id, deleteAfterSeconds: .infinity, clock: clock)
    }

    /// Starts relaying: publishes every room empty, then follows the upstream's events.
    public func start() {
        let stream = upstream.events
        update(rooms.map { location(for: $0, occupancy: 0) })
        relay.withLock { r in
            r.counts = Dictionary(uniqueKeysWithValues: rooms.map { ($0.id, 0) })
            r.task = Task { [weak self] in
                for await event in stream { self?.handle(event) }
            }
        }
    }

    /// Stops relaying and marks the source inactive.
    public func stop() {
        relay.withLock { $0.task }?.cancel()
        setStatus(.inactive)
    }

    private func handle(_ event: LocationSourceEvent) {
        switch event {
        case .statusChanged(let status):
            setStatus(status)
        case .updated(let locations):
            recount { people in locations.forEach { people[$0.targetID] = $0 } }
        case .deleted(let ids):
            recount { people in ids.forEach { people[$0] = nil } }
        }
    }

    private func recount(_ change: (inout [String: Location]) -> Void) {
        let changed = relay.withLock { r -> [Location] in
            change(&r.people)
            var counts = Dictionary(uniqueKeysWithValues: rooms.map { ($0.id, 0) })
            for person in r.people.values {
                if let room = rooms.first(where: { $0.contains(person) }) { counts[room.id, default: 0] += 1 }
            }
            let changed = rooms.filter { counts[$0.id] != r.counts[$0.id] }
            r.counts = counts
            return changed.map { location(for: $0, occupancy: counts[$0.id] ?? 0) }
        }
        update(changed)
    }

    private func location(for room: Room, occupancy: Int) -> Location {
        Location(x: (room.extent.minX + room.extent.maxX) / 2, y: (room.extent.minY + room.extent.maxY) / 2,
                 floor: room.floor, timestamp: clock.now(), horizontalAccuracyMeters: 0, targetID: room.id,
                 attributes: ["occupancy": String(occupancy), "busy": String(occupancy >= busyThreshold)])
    }
}
