/// The parts of a GPX 1.1 file a location source plays: tracks (made of segments) and routes, in file order.
///
/// GPX 1.1 schema, https://www.topografix.com/GPX/1/1/ (`trkType`, `trksegType`, `rteType`, `wptType`).
public struct GPXDocument: Sendable, Hashable {
    /// One `trkpt` or `rtept`.
    public struct Point: Sendable, Hashable {
        /// Latitude, degrees (the `lat` attribute).
        public var latitude: Double
        /// Longitude, degrees (the `lon` attribute).
        public var longitude: Double
        /// Elevation, metres (`ele`), when present.
        public var elevationMeters: Double?
        /// Time as Unix seconds (`time`), when present.
        public var time: Double?
        /// The line the point starts on.
        public var line: Int

        /// Creates a point.
        public init(latitude: Double, longitude: Double, elevationMeters: Double? = nil, time: Double? = nil,
                    line: Int = 0) {
            self.latitude = latitude
            self.longitude = longitude
            self.elevationMeters = elevationMeters
            self.time = time
            self.line = line
        }
    }

    /// A `trk`: a name and its segments.
    public struct Track: Sendable, Hashable {
        /// The `name`, when present.
        public var name: String?
        /// The `trkseg` elements, each a list of points.
        public var segments: [[Point]]
    }

    /// A `rte`: a name and its points.
    public struct Route: Sendable, Hashable {
        /// The `name`, when present.
        public var name: String?
        /// The `rtept` elements.
        public var points: [Point]
    }

    /// Every track, in file order.
    public var tracks: [Track] = []
    /// Every route, in file order.
    public var routes: [Route] = []

    /// The points of the first track that has any (its segments in order, with the index where each segment
    /// starts), else of the first route with points; `nil` when there is neither.
    public func firstPath() -> (points: [Point], segmentStarts: Set<Int>)? {
        if let track = tracks.first(where: { $0.segments.contains { !$0.isEmpty } }) {
            var points: [Point] = []
            var starts: Set<Int> = []
            for segment in track.segments where !segment.isEmpty {
                starts.insert(points.count)
                points += segment
            }
            return (points, starts)
        }
        if let route = routes.first(where: { !$0.points.isEmpty }) { return (route.points, [0]) }
        return nil
    }
}
