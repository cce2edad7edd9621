import LocationDisplay
import Positioning

extension RoomOccupancySource.Room {
    /// The display engine's room for a venue room: same id, name and floor, its outer ring as the outline (the
    /// fixes' `room`, decided by the engine with holes and hysteresis, is what counts people in).
    public init(_ room: Venue.Room) {
        self.init(id: room.id, name: room.name, outline: room.polygon.map { MapPoint(x: $0.x, y: $0.y) },
                  floor: room.floor)
    }
}
