import BlueDotCore
import FoundationEssentials

/// A source that walks a polyline at a constant speed, or plays given locations, on an injected clock: for demos
/// and tests, like ArcGIS Runtime's `SimulatedLocationDataSource`.
public final class SimulatedLocationDataSource: PlaybackLocationDataSource, @unchecked Sendable {
    private let planned: [Location]

    /// Walks `polyline` (local metres) at `speedMetersPerSecond`, one update every `updateIntervalSeconds`, the
    /// last at the final vertex. Locations carry speed, course along the current segment, the given accuracy and
    /// floor, and latitude and longitude when `geographicOrigin` is given.
    public init(polyline: [MapPoint], speedMetersPerSecond: Double, updateIntervalSeconds: Double = 1,
                horizontalAccuracyMeters: Double = 1, floor: Int? = nil, geographicOrigin: GeographicOrigin? = nil,
                targetID: String = "self", loops: Bool = false, clock: any BlueDotClock = SystemClock()) {
        planned = PolylineWalk(points: polyline, speedMetersPerSecond: speedMetersPerSecond,
                               intervalSeconds: updateIntervalSeconds)
            .samples().map { sample in
                let geo = geographicOrigin?.geographic(x: sample.point.x, y: sample.point.y)
                return Location(timestamp: sample.time, targetID: targetID, x: sample.point.x, y: sample.point.y,
                    floor: floor, horizontalAccuracyMeters: horizontalAccuracyMeters,
                    speedMetersPerSecond: speedMetersPerSecond, courseDegrees: sample.courseDegrees,
                    latitude: geo?.latitude, longitude: geo?.longitude)
            }
        super.init(clock: clock, loops: loops, loopGapSeconds: updateIntervalSeconds)
    }

    /// Plays `locations` paced by their timestamps (or every `intervalSeconds` when given).
    public init(locations: [Location], intervalSeconds: Double? = nil, loops: Bool = false,
                clock: any BlueDotClock = SystemClock()) {
        planned = locations.enumerated().map { index, location in
            var paced = location
            if let intervalSeconds { paced.timestamp = Double(index) * intervalSeconds }
            return paced
        }
        super.init(clock: clock, loops: loops, loopGapSeconds: intervalSeconds ?? 1)
    }

    /// The locations this source plays, before restamping.
    public var plannedLocations: [Location] { planned }

    /// Returns the planned locations.
    override public func loadLocations() async throws -> [Location] {
        planned
    }
}
