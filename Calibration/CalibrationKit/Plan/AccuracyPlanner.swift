import Foundation
import Positioning

/// `plan`: predicts the positioning accuracy over a venue (the Cramér-Rao bound per grid point), proposes new
/// beacon positions and ranks the existing anchors.
///
/// An anchor counts at a grid point only when its expected RSSI there (its model at the 3-D distance) is at or
/// above `sensitivityDBm`. The grid covers the venue bounds (or the anchors' extent grown by 2 m) with cells of
/// `cellMeters`, points at the cell centres.
public struct AccuracyPlanner: Sendable {
    /// Grid cell size, metres.
    public var cellMeters: Double = 0.5
    /// Target height, metres.
    public var targetHeightMeters: Double = 1.2
    /// Weakest RSSI a receiver reports, dBm.
    public var sensitivityDBm: Double = -95
    /// The area; nil uses the venue bounds.
    public var area: Venue.Bounds?
    /// The floor's walls: when given, grid points outside are left out of the map and its statistics.
    public var outline: FloorOutline?

    /// Creates a planner with the documented defaults.
    public init() {}

    /// The area a venue is planned over.
    public func area(for venue: Venue) -> Venue.Bounds {
        if let area { return area }
        if let b = venue.bounds { return b }
        let xs = venue.anchors.map(\.x), ys = venue.anchors.map(\.y)
        return Venue.Bounds(minX: (xs.min() ?? 0) - 2, minY: (ys.min() ?? 0) - 2,
                            maxX: (xs.max() ?? 0) + 2, maxY: (ys.max() ?? 0) + 2)
    }

    /// The grid's cell centres over an area (inside the outline, when there is one).
    public func gridPoints(_ b: Venue.Bounds) -> (columns: Int, rows: Int, points: [(x: Double, y: Double)]) {
        let columns = max(Int(((b.maxX - b.minX) / cellMeters).rounded(.up)), 1)
        let rows = max(Int(((b.maxY - b.minY) / cellMeters).rounded(.up)), 1)
        var points: [(x: Double, y: Double)] = []
        points.reserveCapacity(columns * rows)
        for j in 0..<rows {
            for i in 0..<columns {
                let p = (x: min(b.minX + (Double(i) + 0.5) * cellMeters, b.maxX),
                         y: min(b.minY + (Double(j) + 0.5) * cellMeters, b.maxY))
                if let outline, !outline.contains(x: p.x, y: p.y) { continue }
                points.append(p)
            }
        }
        return (columns, rows, points)
    }

    /// The information one anchor gives at a point (empty when it is not heard there).
    public func information(_ a: PlanAnchor, x: Double, y: Double) -> FisherInformation {
        var f = FisherInformation()
        let dx = x - a.x, dy = y - a.y, dz = targetHeightMeters - a.z
        let d = (dx * dx + dy * dy + dz * dz).squareRoot()
        if a.model.rssiDBm(atDistanceMeters: d) >= sensitivityDBm {
            f.add(a, x: x, y: y, height: targetHeightMeters)
        }
        return f
    }

    /// The accuracy map of a set of anchors over an area.
    public func map(anchors: [PlanAnchor], area b: Venue.Bounds) -> AccuracyMap {
        let grid = gridPoints(b)
        let points = grid.points.map { p -> AccuracyMap.Point in
            var f = FisherInformation()
            for a in anchors { f = f + information(a, x: p.x, y: p.y) }
            return AccuracyMap.Point(x: p.x, y: p.y, crlb: f.crlbMeters, anchors: f.anchors)
        }
        return AccuracyMap(minX: b.minX, minY: b.minY, maxX: b.maxX, maxY: b.maxY, cellMeters: cellMeters,
                           columns: grid.columns, rows: grid.rows, points: points, capMeters: capMeters(b))
    }

    /// The cap for missing bounds: the area's diagonal.
    func capMeters(_ b: Venue.Bounds) -> Double {
        ((b.maxX - b.minX) * (b.maxX - b.minX) + (b.maxY - b.minY) * (b.maxY - b.minY)).squareRoot()
    }
}
