import BlueDotCore
/// A target moving between rooms: it left `from` (when it was in one) and entered `to` (when it is in one).
public struct RoomChange: Sendable, Hashable {
    /// The target.
    public var targetID: String
    /// The room left, if any.
    public var from: String?
    /// The room entered, if any.
    public var to: String?
    /// When: the time of the first location in the new room (or of the last one, for a target that is gone).
    public var timestamp: Double

    /// Creates a change.
    public init(targetID: String, from: String?, to: String?, timestamp: Double) {
        self.targetID = targetID
        self.from = from
        self.to = to
        self.timestamp = timestamp
    }
}

/// Turns each target's stream of locations into room changes: how "entered" and "left" are derived from
/// consecutive `Location.room` values. `LocationSource` runs it, once, for every location it carries, and hands
/// the changes to its observers (the web feed's enter and leave events, the history's room changes, room
/// occupancy).
///
/// A target's first location in a room is an entry; a target forgotten while in a room leaves it at the time of
/// its last location. Locations without room knowledge (`roomProbability` nil) change nothing.
public struct RoomTransitions: Sendable {
    private var state: [String: (room: String?, t: Double)] = [:]

    /// No targets yet.
    public init() {}

    /// The change `location` makes, if any.
    public mutating func observe(_ location: Location) -> RoomChange? {
        guard location.roomProbability != nil else { return nil }
        let previous = state.updateValue((location.room, location.timestamp), forKey: location.targetID)
        guard previous?.room != location.room else { return nil }
        return RoomChange(targetID: location.targetID, from: previous?.room, to: location.room,
                          timestamp: location.timestamp)
    }

    /// Forgets a target; the leave it makes when it was in a room.
    public mutating func forget(_ targetID: String) -> RoomChange? {
        guard let last = state.removeValue(forKey: targetID), let room = last.room else { return nil }
        return RoomChange(targetID: targetID, from: room, to: nil, timestamp: last.t)
    }

    /// The room each known target is in (nil when in none).
    public var rooms: [String: String?] { state.mapValues(\.room) }
}
