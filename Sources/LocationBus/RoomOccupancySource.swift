import BlueDotCore
import LocationDisplay


/// A source that relays another: it follows people's locations upstream and publishes one location per room, at
/// the room's centre, with `occupancy` (people inside) and `busy` (`true` at or above `busyThreshold`) attributes.
///
/// Which room a person is in: the room the upstream's room changes (`onRoomsChanged`, derived once by the
/// upstream from the engine's rooms) last put them in, when their locations carry room knowledge (a
/// `roomProbability`: the engine's hysteresis has decided); else, for a source that knows no rooms, the first
/// room whose outline contains the position. A room is published when its occupancy changes (and once, empty,
/// when relaying starts); rooms are never deleted. The status mirrors the upstream's.
public final class RoomOccupancySource: LocationSource, @unchecked Sendable {
    /// One room: an id, an outline and an optional floor.
    public struct Room: Sendable, Hashable {
        /// The room's id, used as the published location's `targetID`.
        public var id: String
        /// Display name, when the room has one.
        public var name: String?
        /// The outline, local metres (the outer ring: at least three corners).
        public var outline: [MapPoint]
        /// The floor, or `nil` to match people on any floor.
        public var floor: Int?

        /// Creates a room with a polygonal outline.
        public init(id: String, name: String? = nil, outline: [MapPoint], floor: Int? = nil) {
            self.id = id
            self.name = name
            self.outline = outline
            self.floor = floor
        }

        /// Creates a rectangular room.
        public init(id: String, extent: MapExtent, floor: Int? = nil) {
            self.init(id: id, outline: [
                MapPoint(x: extent.minX, y: extent.minY), MapPoint(x: extent.maxX, y: extent.minY),
                MapPoint(x: extent.maxX, y: extent.maxY), MapPoint(x: extent.minX, y: extent.maxY),
            ], floor: floor)
        }

        /// True when the location is inside the room's outline (and on its floor).
        public func contains(_ location: Location) -> Bool {
            if let floor, let other = location.floor, floor != other { return false }
            var inside = false
            var j = outline.count - 1
            for i in outline.indices {
                let a = outline[i], b = outline[j]
                if (a.y > location.y) != (b.y > location.y),
                   location.x < (b.x - a.x) * (location.y - a.y) / (b.y - a.y) + a.x {
                    inside.toggle()
                }
                j = i
            }
            return inside
        }

        /// The outline's centroid (area-weighted), or the mean of its corners when it has no area.
        public var centre: MapPoint {
            var area = 0.0, cx = 0.0, cy = 0.0
            var j = outline.count - 1
            for i in outline.indices {
                let a = outline[j], b = outline[i]
                let cross = a.x * b.y - b.x * a.y
                area += cross
                cx += (a.x + b.x) * cross
                cy += (a.y + b.y) * cross
                j = i
            }
            guard abs(area) > 1e-12 else {
                let n = Double(max(outline.count, 1))
                return MapPoint(x: outline.reduce(0) { $0 + $1.x } / n, y: outline.reduce(0) { $0 + $1.y } / n)
            }
            return MapPoint(x: cx / (3 * area), y: cy / (3 * area))
        }
    }

    /// The rooms, in the order given; `use(rooms:)` replaces them.
    public var rooms: [Room] { relay.withLock { $0.rooms } }
    /// The source relayed.
    public let upstream: LocationSource
    /// Occupancy at which a room counts as busy.
    public let busyThreshold: Int
    private struct Relay {
        var rooms: [Room]
        /// Everyone upstream, by target id.
        var people: [String: Location] = [:]
        /// The room each person is in, as the upstream's room changes say.
        var roomOf: [String: String] = [:]
        var members: [String: [String]] = [:]
    }

    private let relay: LockedValue<Relay>
    private let follower = Follower()

    /// Creates a relay over `upstream`; call `start()` to begin.
    public init(id: String, upstream: LocationSource, rooms: [Room], busyThreshold: Int = 1,
                clock: any BlueDotClock = SystemClock()) {
        relay = LockedValue(Relay(rooms: rooms))
        self.upstream = upstream
        self.busyThreshold = busyThreshold
        super.init(id: id, deleteAfterSeconds: .infinity, clock: clock)
    }

    /// Starts relaying: publishes every room empty, then follows the upstream as its observer (its status and
    /// people at once, then every change).
    public func start() {
        let rooms = rooms
        update(rooms.map { location(for: $0, occupancy: 0) })
        relay.withLock { $0.members = Dictionary(uniqueKeysWithValues: rooms.map { ($0.id, []) }) }
        follower.owner.withLock { $0 = Follower.Weak(source: self) }
        upstream.addObserver(follower)
    }

    /// Stops relaying and marks the source inactive.
    public func stop() {
        upstream.removeObserver(follower)
        follower.owner.withLock { $0 = nil }
        setStatus(.inactive)
    }

    /// The people in each room, by room id (ids sorted; every room present, empty ones too).
    public var members: [String: [String]] { relay.withLock { $0.members } }

    /// The room a person's location counts in when its source knows no rooms (no `roomProbability`): the first
    /// whose outline holds it. Nil for a location with room knowledge: the upstream's room changes place those.
    public func room(of location: Location) -> Room? {
        Self.room(of: location, in: rooms)
    }

    private static func room(of location: Location, in rooms: [Room]) -> Room? {
        guard location.roomProbability == nil else { return nil }
        return rooms.first { $0.contains(location) }
    }

    /// Replaces the rooms (a venue reloaded): rooms no longer there are deleted, the others are published with
    /// their occupancy counted again, people in rooms that went away count in none.
    public func use(rooms new: [Room]) {
        let gone = relay.withLock { r -> [String] in
            let kept = Set(new.map(\.id))
            let gone = r.rooms.map(\.id).filter { !kept.contains($0) }
            r.rooms = new
            r.members = [:]
            return gone
        }
        delete(gone)
        recount(publishingAll: true) { _ in }
    }

    fileprivate func handle(_ event: LocationSourceEvent) {
        switch event {
        case .statusChanged(let status):
            setStatus(status)
        case .updated(let locations):
            recount { r in locations.forEach { r.people[$0.targetID] = $0 } }
        case .deleted(let ids):
            recount { r in ids.forEach { r.people[$0] = nil } }
        case .roomsChanged(let changes):
            recount { r in changes.forEach { r.roomOf[$0.targetID] = $0.to } }
        }
    }

    private func recount(publishingAll: Bool = false, _ change: (inout Relay) -> Void) {
        let changed = relay.withLock { r -> [Location] in
            change(&r)
            let rooms = r.rooms
            var members = Dictionary(uniqueKeysWithValues: rooms.map { ($0.id, [String]()) })
            for person in r.people.values {
                let id = r.roomOf[person.targetID] ?? Self.room(of: person, in: rooms)?.id
                if let id, members[id] != nil { members[id]?.append(person.targetID) }
            }
            for key in members.keys { members[key]?.sort() }
            let changed = rooms.filter { publishingAll || members[$0.id]?.count != r.members[$0.id]?.count }
            r.members = members
            return changed.map { location(for: $0, occupancy: members[$0.id]?.count ?? 0) }
        }
        update(changed)
    }

    private func location(for room: Room, occupancy: Int) -> Location {
        let centre = room.centre
        return Location(timestamp: clock.now(), targetID: room.id, x: centre.x, y: centre.y, floor: room.floor,
            horizontalAccuracyMeters: 0,
            attributes: ["occupancy": String(occupancy), "busy": String(occupancy >= busyThreshold)])
    }
}

/// The relay's observer of its upstream (a separate object, so the upstream does not keep the relay alive).
private final class Follower: LocationSourceObserver, Sendable {
    let owner = LockedValue<Weak?>(nil)

    struct Weak: @unchecked Sendable {
        // @unchecked: a weak reference to a Sendable class, read under the lock.
        weak var source: RoomOccupancySource?
    }

    func onLocationsUpdated(_ locations: [Location], source: LocationSource) {
        owner.value?.source?.handle(.updated(locations))
    }

    func onLocationsDeleted(_ targetIDs: [String], source: LocationSource) {
        owner.value?.source?.handle(.deleted(targetIDs))
    }

    func onRoomsChanged(_ changes: [RoomChange], source: LocationSource) {
        owner.value?.source?.handle(.roomsChanged(changes))
    }

    func onStatusChanged(_ status: LocationSourceStatus, source: LocationSource) {
        owner.value?.source?.handle(.statusChanged(status))
    }
}
