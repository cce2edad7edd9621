/// A simulated office with walls, to measure what a wall-aware motion model buys (`EngineConfiguration.usesWalls`):
/// a 24 m x 12 m floor with a corridor (y 5-7 m) between four offices on each side (6 m x 5 m), a 1 m door from
/// each office to the corridor, an anchor on the ceiling (2.5 m) of every office and two in the corridor, and a
/// walk at 1 m/s that goes from office to office through the doors, pausing 10 s in each.
///
/// Signals lose `wallLossDB` per wall between anchor and target (`SimulationConfiguration.wallLossDB`), which the
/// engine's log-distance model does not know: the bias walls cause, with the walls' geometry as the only cure.
public enum SimulatedOffice {
    /// The venue: the model the simulation uses, rooms, doors, bounds.
    public static func venue(model: PathLossModel = PathLossModel(measuredPowerDBm: -59, pathLossExponent: 2.0,
                                                                   shadowingSigmaDB: 4)) -> Venue {
        var rooms: [Venue.Room] = []
        var openings: [Venue.Opening] = []
        var anchors: [Anchor] = []
        func p(_ x: Double, _ y: Double) -> Venue.PlanPoint { Venue.PlanPoint(x: x, y: y) }
        for i in 0..<4 {
            let x0 = 6 * Double(i), cx = x0 + 3
            rooms.append(Venue.Room(id: "south-\(i + 1)", floor: 0, polygon: [p(x0, 0), p(x0 + 6, 0), p(x0 + 6, 5), p(x0, 5)]))
            rooms.append(Venue.Room(id: "north-\(i + 1)", floor: 0, polygon: [p(x0, 7), p(x0 + 6, 7), p(x0 + 6, 12), p(x0, 12)]))
            openings.append(Venue.Opening(id: "door-south-\(i + 1)", floor: 0, line: [p(cx - 0.5, 5), p(cx + 0.5, 5)]))
            openings.append(Venue.Opening(id: "door-north-\(i + 1)", floor: 0, line: [p(cx - 0.5, 7), p(cx + 0.5, 7)]))
            anchors.append(Anchor(id: "s\(i + 1)", x: cx, y: 2.5, z: 2.5))
            anchors.append(Anchor(id: "n\(i + 1)", x: cx, y: 9.5, z: 2.5))
        }
        rooms.append(Venue.Room(id: "corridor", floor: 0, polygon: [p(0, 5), p(24, 5), p(24, 7), p(0, 7)]))
        anchors.append(Anchor(id: "c1", x: 6, y: 6, z: 2.5))
        anchors.append(Anchor(id: "c2", x: 18, y: 6, z: 2.5))
        return Venue(name: "Simulated office", model: model, anchors: anchors,
                     bounds: Venue.Bounds(minX: 0, minY: 0, maxX: 24, maxY: 12), rooms: rooms, openings: openings)
    }

    /// The walk, starting at `start`: south-1, north-2, south-3, north-4, south-2, north-1 and back to the corridor,
    /// through the doors, at 1 m/s, 10 s still in each office.
    public static func walk(target: String = "walker", start: Double = 1000) -> Track {
        var points: [(Double, Double)] = [(3, 2.5)]
        var pauses: Set<Int> = [0]
        for (x, north) in [(9.0, true), (15, false), (21, true), (9, false), (3, true)] {
            let last = points[points.count - 1]
            let doorY = points.count == 1 ? 5.0 : (last.1 > 6 ? 7 : 5)
            points.append((last.0, doorY))
            points.append((last.0, 6))
            points.append((x, 6))
            points.append((x, north ? 7 : 5))
            points.append((x, north ? 9.5 : 2.5))
            pauses.insert(points.count - 1)
        }
        let last = points[points.count - 1]
        points.append((last.0, last.1 > 6 ? 7 : 5))
        points.append((last.0, 6))
        var waypoints: [Track.Waypoint] = []
        var t = start
        for (i, q) in points.enumerated() {
            if let previous = waypoints.last {
                t += ((q.0 - previous.x) * (q.0 - previous.x) + (q.1 - previous.y) * (q.1 - previous.y)).squareRoot()
            }
            waypoints.append(Track.Waypoint(t: t, x: q.0, y: q.1))
            if pauses.contains(i) {
                t += 10
                waypoints.append(Track.Waypoint(t: t, x: q.0, y: q.1))
            }
        }
        return Track(target: target, waypoints: waypoints)
    }

    /// The simulation settings: 5 packets/s per anchor, 4 dB shadowing, `wallLossDB` per wall, RSSI in whole dBm.
    public static func configuration(wallLossDB: Double = 5) -> SimulationConfiguration {
        var c = SimulationConfiguration(rateHz: 5, shadowingSigmaDB: 4, jitterSeconds: 0.01, sensitivityDBm: -100,
                                        defaultHeightMeters: 1.2, rssiDecimals: 0)
        c.wallLossDB = wallLossDB
        return c
    }
}
