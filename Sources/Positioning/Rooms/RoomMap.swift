import FoundationEssentials
import Glibc

/// The venue's rooms prepared for point tests: each room's rings (outer and holes) with its bounding box, and the
/// probability that a fix lies in each room given its position and 68% radius.
///
/// A fix is a circular Gaussian about (x, y) whose 68% radius is the fix's `horizontalAccuracy` (the honest radius
/// the engine calibrates, so σ = r₆₈ / 1.5096). The probability of a room is that Gaussian's mass inside the room's
/// polygon, found by a fixed cubature: 128 equal-mass points on 8 rings at the Rayleigh distribution's quantiles
/// and 16 bearings (every other ring turned by half a step). Equal weights make each probability a multiple of
/// 1/128, exact for rooms much larger than the radius and within a few percent at a wall; the same fix always
/// gives the same numbers.
public struct RoomMap: Sendable {
    /// One room ready for point tests.
    public struct Shape: Sendable {
        /// The room's id.
        public let id: String
        /// The room's display name, or its id.
        public let name: String
        /// The floor it is on.
        public let floor: Int
        /// The outer ring, then the holes; even-odd filling makes the holes holes.
        let rings: [[Venue.PlanPoint]]
        /// The bounding box of the outer ring.
        public let bounds: Venue.Bounds

        /// True when (x, y) is inside the room (on the outer ring and outside every hole; boundary points may
        /// fall either way).
        public func contains(x: Double, y: Double) -> Bool {
            guard bounds.contains(x: x, y: y) else { return false }
            var inside = false
            for ring in rings {
                var j = ring.count - 1
                for i in 0..<ring.count {
                    let a = ring[i], b = ring[j]
                    if (a.y > y) != (b.y > y), x < (b.x - a.x) * (y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
                    j = i
                }
            }
            return inside
        }

        /// Metres from (x, y) to the room: 0 inside it, else to the nearest edge of its outer ring.
        public func distance(x: Double, y: Double) -> Double {
            if contains(x: x, y: y) { return 0 }
            guard let ring = rings.first, !ring.isEmpty else { return .infinity }
            var best = Double.infinity
            var j = ring.count - 1
            for i in 0..<ring.count {
                let edge = WallMap.Segment(ax: ring[j].x, ay: ring[j].y, bx: ring[i].x, by: ring[i].y)
                best = min(best, WallMap.squaredDistance(x, y, edge))
                j = i
            }
            return best.squareRoot()
        }
    }

    /// The rooms, in venue order.
    public let shapes: [Shape]

    /// The unit-variance cubature points (x, y offsets in σ) and the largest offset.
    private static let cubature: (points: [(Double, Double)], reach: Double) = {
        let rings = 8, bearings = 16
        var points: [(Double, Double)] = []
        var reach = 0.0
        for i in 0..<rings {
            let u = (Double(i) + 0.5) / Double(rings)
            let r = (-2 * log(1 - u)).squareRoot()
            reach = max(reach, r)
            let turn = i.isMultiple(of: 2) ? 0 : 0.5
            for k in 0..<bearings {
                let angle = 2 * Double.pi * (Double(k) + turn) / Double(bearings)
                points.append((r * cos(angle), r * sin(angle)))
            }
        }
        return (points, reach)
    }()

    /// σ of a circular Gaussian whose 68% radius is 1: √(−2 ln 0.32).
    static let radius68PerSigma = (-2 * log(0.32)).squareRoot()

    /// Where a target can be (the venue's `bounds`): mass of a fix outside it is left out of the room
    /// probabilities, which are then shares of the mass inside. Nil: the whole plane.
    public let bounds: Venue.Bounds?

    /// Prepares the venue's rooms (rings closed or not; a closing repeat of the first point is ignored), within
    /// `bounds` when given.
    public init(rooms: [Venue.Room], bounds: Venue.Bounds? = nil) {
        self.bounds = bounds
        shapes = rooms.map { room in
            let rings = ([room.polygon] + room.holes).map(Self.open)
            let xs = room.polygon.map(\.x), ys = room.polygon.map(\.y)
            return Shape(id: room.id, name: room.name ?? room.id, floor: room.floor, rings: rings,
                         bounds: Venue.Bounds(minX: xs.min() ?? 0, minY: ys.min() ?? 0,
                                              maxX: xs.max() ?? 0, maxY: ys.max() ?? 0))
        }
    }

    /// True when the venue has no rooms.
    public var isEmpty: Bool { shapes.isEmpty }

    /// The index of the first room containing the point, on `floor` when given.
    public func room(x: Double, y: Double, floor: Int?) -> Int? {
        shapes.indices.first { i in onFloor(shapes[i], floor) && shapes[i].contains(x: x, y: y) }
    }

    /// The probability of each room (by index into `shapes`) for a fix at (x, y) with 68% radius `radius68` on
    /// `floor` (nil: rooms of every floor); rooms with no mass are left out. Overlapping rooms may add to more
    /// than 1. With `bounds`, the fix's mass is taken as truncated to them: a vague fix by the outer wall of a house
    /// whose rooms fill its bounds is in one of its rooms, not half outside it.
    public func probabilities(x: Double, y: Double, radius68: Double, floor: Int?) -> [(room: Int, p: Double)] {
        let sigma = max(radius68, 1e-3) / Self.radius68PerSigma
        let reach = Self.cubature.reach * sigma
        var result: [(room: Int, p: Double)] = []
        var weight = 1 / Double(Self.cubature.points.count)
        func inBounds(_ px: Double, _ py: Double) -> Bool { bounds?.contains(x: px, y: py) ?? true }
        if bounds != nil {
            let within = Self.cubature.points.count { (dx, dy) in inBounds(x + dx * sigma, y + dy * sigma) }
            if within > 0 { weight = 1 / Double(within) }
        }
        for (i, shape) in shapes.enumerated() where onFloor(shape, floor) {
            let b = shape.bounds
            guard x + reach >= b.minX, x - reach <= b.maxX, y + reach >= b.minY, y - reach <= b.maxY else { continue }
            var inside = 0
            for (dx, dy) in Self.cubature.points where shape.contains(x: x + dx * sigma, y: y + dy * sigma)
                && inBounds(x + dx * sigma, y + dy * sigma) {
                inside += 1
            }
            if inside > 0 { result.append((i, Double(inside) * weight)) }
        }
        return result
    }

    private func onFloor(_ shape: Shape, _ floor: Int?) -> Bool {
        guard let floor else { return true }
        return shape.floor == floor
    }

    private static func open(_ ring: [Venue.PlanPoint]) -> [Venue.PlanPoint] {
        guard ring.count > 3, let first = ring.first, ring.last == first else { return ring }
        return Array(ring.dropLast())
    }
}
