import BlueDotCore

/// The payloads of each fix: the tracker's and the room sensor's states, and the tracker's attributes.
extension HomeAssistantDiscovery {
    /// The tracker's state: the room's name, or `not_home` outside every room.
    public func trackerState(_ location: Location) -> String {
        location.room.map(roomName) ?? "not_home"
    }

    /// The room sensor's state: the room's name, or `none` outside every room.
    public func roomState(_ location: Location) -> String {
        location.room.map(roomName) ?? Self.noRoom
    }

    /// A room's name: the venue's, else its id.
    public func roomName(_ id: String) -> String { roomNames[id] ?? id }

    /// The tracker's attributes (JSON): `x`, `y` (metres, centimetre steps), `floor` (when known), `accuracy` (the
    /// 68% radius, metres), `room` (the room's id or null), `roomProbability` (when known), `lastKnown`; with a
    /// geographic origin also `latitude`, `longitude` (degrees, 7 decimals) and `gps_accuracy` (metres), the keys
    /// Home Assistant places a tracker on its map with.
    public func attributes(_ location: Location) -> String {
        var json = HomeAssistantJSON()
        json.number("x", location.x, decimals: 2)
        json.number("y", location.y, decimals: 2)
        if let floor = location.floor { json.integer("floor", floor) }
        json.number("accuracy", location.horizontalAccuracyMeters, decimals: 2)
        json.stringOrNull("room", location.room)
        if let p = location.roomProbability { json.number("roomProbability", p, decimals: 3) }
        json.boolean("lastKnown", location.lastKnown)
        if let latitude = location.latitude, let longitude = location.longitude {
            json.number("latitude", latitude, decimals: 7)
            json.number("longitude", longitude, decimals: 7)
            json.number("gps_accuracy", location.horizontalAccuracyMeters, decimals: 1)
        }
        return json.text
    }
}
