import BeaconLocation
import BlueDotCore
import LocationBus

/// An observer of the spine's `LocationSource` that writes every location, and every room change the source
/// derives (a target forgotten while in a room leaves it), to a `HistoryStore`. It only queues: the store's writer
/// thread does the disk work.
public final class HistoryRecorder: LocationSourceObserver, Sendable {
    /// Where the records go.
    public let store: HistoryStore

    /// Creates a recorder writing to `store`.
    public init(store: HistoryStore) {
        self.store = store
    }

    /// Writes the locations.
    public func onLocationsUpdated(_ locations: [Location], source: LocationSource) {
        store.record(locations)
    }

    /// Writes the room changes.
    public func onRoomsChanged(_ changes: [RoomChange], source: LocationSource) {
        changes.forEach(store.record)
    }

    /// Nothing: a forgotten target's leave came as a room change just before.
    public func onLocationsDeleted(_ targetIDs: [String], source: LocationSource) {}

    /// Nothing: the history keeps fixes, not the source's status.
    public func onStatusChanged(_ status: LocationSourceStatus, source: LocationSource) {}
}
