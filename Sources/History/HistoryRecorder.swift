import BeaconLocation
import BlueDotCore
import LocationBus

/// An observer of the spine's `LocationSource` that writes every location, and every room change the source
/// derives (a target forgotten while in a room leaves it), to a `HistoryStore`. It only queues: the store's writer
/// thread does the disk work.
///
/// Where the source decides rooms behind its fixes (`Location.smoothed`: the engine's `roomLagSeconds`), the history
/// keeps each fix at its smoothed position, as issue 42 asks of the outputs that may lag: a fix is held until a
/// later one carries its smoothed position (about 3 s), then written with that position and with the room decided
/// there (the later fix's), the rest its own. Held fixes that no later fix describes (the last seconds before a
/// silence, a target forgotten, the recorder's end) are written as they came. Its radius stays the fix's own:
/// smoothing narrows the filter's part of it, not the anchors' model error, which the filter cannot average away.
public final class HistoryRecorder: LocationSourceObserver, Sendable {
    /// Where the records go.
    public let store: HistoryStore
    /// Per target, the fixes waiting for their smoothed position, oldest first.
    private let held = LockedValue<[String: [Location]]>([:])

    /// Creates a recorder writing to `store`.
    public init(store: HistoryStore) {
        self.store = store
    }

    /// Writes the locations, or holds them for their smoothed positions.
    public func onLocationsUpdated(_ locations: [Location], source: LocationSource) {
        let rows = held.withLock { held in locations.flatMap { Self.rows(for: $0, held: &held) } }
        if !rows.isEmpty { store.record(rows) }
    }

    /// Writes the room changes.
    public func onRoomsChanged(_ changes: [RoomChange], source: LocationSource) {
        changes.forEach(store.record)
    }

    /// Writes what was held of the forgotten targets (their leave came as a room change just before).
    public func onLocationsDeleted(_ targetIDs: [String], source: LocationSource) {
        let rows = held.withLock { held in targetIDs.flatMap { held.removeValue(forKey: $0) ?? [] } }
        if !rows.isEmpty { store.record(rows) }
    }

    /// Nothing: the history keeps fixes, not the source's status.
    public func onStatusChanged(_ status: LocationSourceStatus, source: LocationSource) {}

    /// Writes every fix still held, as it came: call before closing the store.
    public func writeHeld() {
        let rows = held.withLock { held in
            defer { held.removeAll() }
            return held.values.flatMap { $0 }.sorted { $0.timestamp < $1.timestamp }
        }
        if !rows.isEmpty { store.record(rows) }
    }

    /// The rows `location` releases: the held fixes up to the one it describes (that one at its smoothed
    /// position), or, when it describes none, every held fix and itself.
    private static func rows(for location: Location, held: inout [String: [Location]]) -> [Location] {
        let id = location.targetID
        guard let past = location.smoothed, !location.lastKnown else {
            return (held.removeValue(forKey: id) ?? []) + [location]
        }
        var waiting = held[id] ?? []
        waiting.append(location)
        guard let k = waiting.firstIndex(where: { $0.timestamp == past.timestamp }) else {
            held[id] = waiting
            return []
        }
        var rows = Array(waiting[...k])
        held[id] = Array(waiting[(k + 1)...])
        rows[k].x = past.x
        rows[k].y = past.y
        rows[k].latitude = past.latitude
        rows[k].longitude = past.longitude
        rows[k].room = location.room
        rows[k].roomProbability = location.roomProbability
        rows[k].smoothed = nil
        return rows
    }
}
