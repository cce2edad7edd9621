import BlueDotCore
import LocationDisplay

/// An observer of the spine's `LocationSource` that writes every location, and every room change they make
/// (`RoomTransitions`: a target forgotten while in a room leaves it), to a `HistoryStore`. It only queues: the
/// store's writer thread does the disk work.
public final class HistoryRecorder: LocationSourceObserver, Sendable {
    /// Where the records go.
    public let store: HistoryStore
    private let transitions = LockedValue(RoomTransitions())

    /// Creates a recorder writing to `store`.
    public init(store: HistoryStore) {
        self.store = store
    }

    /// Writes the locations and the room changes they make.
    public func onLocationsUpdated(_ locations: [Location], source: LocationSource) {
        store.record(locations)
        let changes = transitions.withLock { t in locations.compactMap { t.observe($0) } }
        changes.forEach(store.record)
    }

    /// Writes the leaves of forgotten targets that were in a room.
    public func onLocationsDeleted(_ targetIDs: [String], source: LocationSource) {
        let changes = transitions.withLock { t in targetIDs.compactMap { t.forget($0) } }
        changes.forEach(store.record)
    }

    /// Nothing: the history keeps fixes, not the source's status.
    public func onStatusChanged(_ status: LocationSourceStatus, source: LocationSource) {}
}
