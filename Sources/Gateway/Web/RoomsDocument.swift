import BeaconLocation
import BlueDotCore
import JSON
import LocationBus

/// The venue's rooms with who is in them (`GET /api/rooms`): `[{"id", "name", "floor", "occupancy", "targets"}]`
/// in venue order, from the rooms' relaying source (`RoomOccupancySource`, which counts each target in the room
/// its fixes name). An empty array when the venue has no rooms.
enum RoomsDocument {
    static func json(_ rooms: RoomOccupancySource?) -> String {
        guard let rooms else { return "[]" }
        let members = rooms.members
        let entries = rooms.rooms.map { room in
            let targets = members[room.id] ?? []
            var text = "{\"id\":\(JSONText.quoted(room.id))"
            if let name = room.name { text += ",\"name\":\(JSONText.quoted(name))" }
            if let floor = room.floor { text += ",\"floor\":\(floor)" }
            text += ",\"occupancy\":\(targets.count),\"targets\":[" + targets.map(JSONText.quoted).joined(separator: ",")
            return text + "]}"
        }
        return "[" + entries.joined(separator: ",") + "]"
    }
}
