/// Where one target is over time: waypoints joined by straight lines at constant speed.
public struct Track: Sendable, Hashable {
    /// A position at an instant.
    public struct Waypoint: Sendable, Hashable {
        /// Time, seconds.
        public var t: Double
        /// Position, metres; `z` nil when the track gives no height.
        public var x: Double, y: Double, z: Double?

        /// Creates a waypoint.
        public init(t: Double, x: Double, y: Double, z: Double? = nil) {
            self.t = t
            self.x = x
            self.y = y
            self.z = z
        }
    }

    /// The target that moves along the track.
    public var target: String
    /// Waypoints in time order (equal times allowed: a jump).
    public private(set) var waypoints: [Waypoint]

    /// Creates a track; waypoints are sorted by time (stably) and must not be empty.
    public init(target: String, waypoints: [Waypoint]) {
        precondition(!waypoints.isEmpty, "a track needs at least one waypoint")
        self.target = target
        self.waypoints = waypoints.enumerated()
            .sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
    }

    /// One track per target of truth (or waypoint) lines, in order of first appearance.
    public static func tracks(from points: [TruthPoint]) -> [Track] {
        var order: [String] = []
        var byTarget: [String: [Waypoint]] = [:]
        for p in points {
            if byTarget[p.target] == nil { order.append(p.target) }
            byTarget[p.target, default: []].append(Waypoint(t: p.t, x: p.x, y: p.y, z: p.z))
        }
        return order.map { Track(target: $0, waypoints: byTarget[$0]!) }
    }

    /// First waypoint's time.
    public var startTime: Double { waypoints[0].t }
    /// Last waypoint's time.
    public var endTime: Double { waypoints[waypoints.count - 1].t }

    /// The position at time `t`, linearly interpolated between the waypoints around it and held constant before
    /// the first and after the last. `z` is interpolated when both waypoints have one, else taken from whichever has.
    public func position(at t: Double) -> Waypoint {
        if t <= startTime { return Waypoint(t: t, x: waypoints[0].x, y: waypoints[0].y, z: waypoints[0].z) }
        if t >= endTime {
            let last = waypoints[waypoints.count - 1]
            return Waypoint(t: t, x: last.x, y: last.y, z: last.z)
        }
        // The segment [a, b] with a.t <= t < b.t (binary search for the first waypoint after t).
        var low = 0
        var high = waypoints.count
        while low < high {
            let mid = (low + high) / 2
            if waypoints[mid].t > t { high = mid } else { low = mid + 1 }
        }
        let a = waypoints[low - 1]
        let b = waypoints[low]
        let f = b.t > a.t ? (t - a.t) / (b.t - a.t) : 0
        let z: Double? = switch (a.z, b.z) {
        case let (za?, zb?): za + f * (zb - za)
        case let (za?, nil): za
        case let (nil, zb?): zb
        case (nil, nil): nil
        }
        return Waypoint(t: t, x: a.x + f * (b.x - a.x), y: a.y + f * (b.y - a.y), z: z)
    }
}
