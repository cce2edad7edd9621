import BlueDotCore
import Site

/// The payloads of each fix: the tracker's and the room sensor's states, and the tracker's attributes.
extension HomeAssistantDiscovery {
    /// The tracker's state while the target is located in the venue (Home Assistant's `payload_home` default).
    public static let home = "home"
    /// The tracker's state once the target has not been heard for the away timeout (`payload_not_home`'s default).
    public static let notHome = "not_home"

    /// The room sensor's state: the room's name, or `none` outside every room.
    public func roomState(_ location: Location) -> String {
        location.room.map(roomName) ?? Self.noRoom
    }

    /// A room's name: the venue's, else its id.
    public func roomName(_ id: String) -> String { roomNames[id] ?? id }

    /// The tracker's attributes (JSON), snake_case, every number's unit in its key or documented: `x_m`, `y_m`
    /// (metres, centimetre steps), `floor` (the level, when known), `accuracy_m` (the 68% radius), `room` (the
    /// room's id or null), `room_probability` (0 to 1, when known), `receivers` (how many made the fix),
    /// `last_known`; with a geographic origin also `latitude`, `longitude` (degrees, 7 decimals) and `gps_accuracy`
    /// (metres), the keys Home Assistant places a tracker on its map with.
    ///
    /// `away` (the target is `not_home`) leaves out the coordinates and marks the fix last known: a tracker (and a
    /// person) with coordinates inside the Home zone would otherwise still be drawn at home, and some Home
    /// Assistant releases derive the state from the coordinates.
    public func attributes(_ location: Location, away: Bool = false) -> String {
        var json = HomeAssistantJSON()
        json.number("x_m", location.x, decimals: 2)
        json.number("y_m", location.y, decimals: 2)
        if let floor = location.floor { json.integer("floor", floor) }
        json.number("accuracy_m", location.horizontalAccuracyMeters, decimals: 2)
        json.stringOrNull("room", away ? nil : location.room)
        if !away, let p = location.roomProbability { json.number("room_probability", p, decimals: 3) }
        json.integer("receivers", away ? 0 : location.anchorCount)
        json.boolean("last_known", away || location.lastKnown)
        if !away, let latitude = location.latitude, let longitude = location.longitude {
            json.number("latitude", latitude, decimals: 7)
            json.number("longitude", longitude, decimals: 7)
            json.number("gps_accuracy", location.horizontalAccuracyMeters, decimals: 1)
        }
        return json.text
    }
}
