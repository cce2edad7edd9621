/// The venue's walls, for a motion model that moves only through openings: every edge of every room's rings is a
/// wall, except where an opening (`Venue.Opening`) lies on it; the walkable area is the union of the rooms.
///
/// So a venue drawn as rooms with doors confines a target to paths through the doors, and a venue drawn as one
/// outline (a flat's wall polygon, with its partition walls as notches) confines it to that outline. A venue without
/// rooms has no walls. Everything is per floor.
public struct WallMap: Sendable {
    /// One wall segment.
    struct Segment: Sendable {
        var ax: Double, ay: Double, bx: Double, by: Double
        var minX: Double { min(ax, bx) }
        var maxX: Double { max(ax, bx) }
        var minY: Double { min(ay, by) }
        var maxY: Double { max(ay, by) }
    }

    /// A crossing this close to an opening's line (metres) goes through the opening.
    public var openingToleranceMeters = 0.25
    /// Walls by floor.
    private var walls: [Int: [Segment]] = [:]
    /// Openings by floor, as segments.
    private var openings: [Int: [Segment]] = [:]
    /// The rooms, for the walkable test.
    private let rooms: RoomMap

    /// Nil when the venue has no rooms.
    public init?(venue: Venue) {
        guard !venue.rooms.isEmpty else { return nil }
        rooms = RoomMap(rooms: venue.rooms)
        for room in venue.rooms {
            for ring in [room.polygon] + room.holes {
                var points = ring
                if points.count > 1, points.first == points.last { points.removeLast() }
                for i in points.indices {
                    let a = points[i], b = points[(i + 1) % points.count]
                    walls[room.floor, default: []].append(Segment(ax: a.x, ay: a.y, bx: b.x, by: b.y))
                }
            }
        }
        for opening in venue.openings {
            for (a, b) in zip(opening.line, opening.line.dropFirst()) {
                openings[opening.floor, default: []].append(Segment(ax: a.x, ay: a.y, bx: b.x, by: b.y))
            }
        }
    }

    /// True when (x, y) is inside one of the floor's rooms.
    public func isWalkable(x: Double, y: Double, floor: Int) -> Bool {
        rooms.room(x: x, y: y, floor: floor) != nil
    }

    /// True when the straight move from (x0, y0) to (x1, y1) crosses a wall of the floor away from every opening.
    public func blocks(fromX x0: Double, fromY y0: Double, toX x1: Double, toY y1: Double, floor: Int) -> Bool {
        guard let segments = walls[floor] else { return false }
        let minX = min(x0, x1), maxX = max(x0, x1), minY = min(y0, y1), maxY = max(y0, y1)
        for s in segments where s.maxX >= minX && s.minX <= maxX && s.maxY >= minY && s.minY <= maxY {
            guard let (cx, cy) = Self.intersection(x0, y0, x1, y1, s) else { continue }
            if !throughOpening(x: cx, y: cy, floor: floor) { return true }
        }
        return false
    }

    /// How many walls of the floor the straight line from (x0, y0) to (x1, y1) crosses away from openings; crossings
    /// within 1 cm of each other count once (the edge two rooms share is one wall).
    public func wallsCrossed(fromX x0: Double, fromY y0: Double, toX x1: Double, toY y1: Double, floor: Int) -> Int {
        guard let segments = walls[floor] else { return 0 }
        var points: [(Double, Double)] = []
        for s in segments {
            guard let (cx, cy) = Self.intersection(x0, y0, x1, y1, s), !throughOpening(x: cx, y: cy, floor: floor),
                  !points.contains(where: { abs($0.0 - cx) < 0.01 && abs($0.1 - cy) < 0.01 }) else { continue }
            points.append((cx, cy))
        }
        return points.count
    }

    /// Whether a crossing point lies on one of the floor's openings.
    private func throughOpening(x: Double, y: Double, floor: Int) -> Bool {
        guard let list = openings[floor] else { return false }
        let t2 = openingToleranceMeters * openingToleranceMeters
        return list.contains { Self.squaredDistance(x, y, $0) <= t2 }
    }

    /// The crossing point of segment p0→p1 with wall s, nil when they do not cross (parallel ones never do).
    static func intersection(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ s: Segment)
        -> (Double, Double)? {
        let rx = x1 - x0, ry = y1 - y0
        let sx = s.bx - s.ax, sy = s.by - s.ay
        let denominator = rx * sy - ry * sx
        guard abs(denominator) > 1e-12 else { return nil }
        let qx = s.ax - x0, qy = s.ay - y0
        let t = (qx * sy - qy * sx) / denominator
        let u = (qx * ry - qy * rx) / denominator
        guard t >= 0, t <= 1, u >= 0, u <= 1 else { return nil }
        return (x0 + t * rx, y0 + t * ry)
    }

    /// Squared distance from a point to a segment.
    static func squaredDistance(_ x: Double, _ y: Double, _ s: Segment) -> Double {
        let dx = s.bx - s.ax, dy = s.by - s.ay
        let length2 = dx * dx + dy * dy
        let t = length2 > 0 ? max(0, min(1, ((x - s.ax) * dx + (y - s.ay) * dy) / length2)) : 0
        let px = s.ax + t * dx - x, py = s.ay + t * dy - y
        return px * px + py * py
    }
}
