import BlueDotCore
/// The state of a many-target `LocationSource`, after MapsIndoors' `MPLocationSourceStatus`.
public enum LocationSourceStatus: Sendable, Hashable, CustomStringConvertible {
    /// Delivering locations.
    case available
    /// Cannot deliver now (receivers offline, upstream failed).
    case unavailable
    /// Getting ready; no locations yet.
    case initialising
    /// Switched off on purpose.
    case inactive

    /// A lower-case name for logs, the feed and `/api/health`.
    public var description: String {
        switch self {
        case .available: "available"
        case .unavailable: "unavailable"
        case .initialising: "initialising"
        case .inactive: "inactive"
        }
    }
}

/// One thing a `LocationSource` tells its observers.
public enum LocationSourceEvent: Sendable, Hashable {
    /// These targets have new locations.
    case updated([Location])
    /// These targets were removed (not heard for the timeout, or deleted by the source).
    case deleted([String])
    /// Targets moved between rooms: derived once, by the source, from its locations' rooms (`RoomTransitions`).
    /// Follows the update that made the changes; a target forgotten while in a room leaves it just before it is
    /// deleted.
    case roomsChanged([RoomChange])
    /// The source's status changed.
    case statusChanged(LocationSourceStatus)
}

/// Receives a `LocationSource`'s events, in order, on the thread that made each change (MapsIndoors' observer
/// callbacks): quick, and never blocking (`LocationSource.addObserver(_:)`).
public protocol LocationSourceObserver: AnyObject, Sendable {
    /// Targets have new locations.
    func onLocationsUpdated(_ locations: [Location], source: LocationSource)
    /// Targets were removed.
    func onLocationsDeleted(_ targetIDs: [String], source: LocationSource)
    /// Targets entered or left rooms (`LocationSourceEvent.roomsChanged`).
    func onRoomsChanged(_ changes: [RoomChange], source: LocationSource)
    /// The source's status changed.
    func onStatusChanged(_ status: LocationSourceStatus, source: LocationSource)
}

extension LocationSourceObserver {
    /// Nothing, for observers that do not follow rooms.
    public func onRoomsChanged(_ changes: [RoomChange], source: LocationSource) {}
}
