import BlueDotCore
import Formats
import Glibc
import LocationDisplay

/// Plays the first track (or, without one, the first route) of a GPX 1.1 file, like ArcGIS Runtime's simulated
/// source fed from GPX.
///
/// The file is read on `start()` by `Formats`' `GPXParser` (expat), so a missing or broken file is a start failure
/// whose `GPXError` names the file, the line and column, and what is wrong. It lives here, not in the pure
/// display engine, because it reads a file through a C library, as `LocationReplayDataSource` reads its JSONL.
/// Pacing follows the points' `time` stamps, or a constant walking speed; a gap where
/// either point lacks a time, or where time does not advance, is paced at `fallbackSpeedMetersPerSecond`.
/// Positions are local metres about `geographicOrigin` (default: the first point, +y north) and also carry
/// latitude, longitude and elevation; speed and course come from consecutive points within a segment.
public final class GPXLocationDataSource: PlaybackLocationDataSource, @unchecked Sendable {
    /// How playback is paced.
    public enum Pacing: Sendable, Hashable {
        /// By the points' timestamps.
        case timestamps
        /// At a constant speed in m/s along the path, ignoring timestamps.
        case speed(Double)
    }

    /// The GPX file.
    public let path: String
    /// How playback is paced.
    public let pacing: Pacing
    /// Speed for gaps without usable timestamps, m/s.
    public let fallbackSpeedMetersPerSecond: Double
    /// The 68% accuracy radius given to every location, metres.
    public let horizontalAccuracyMeters: Double
    private let origin: GeographicOrigin?

    /// Creates a source for the GPX file at `path`.
    public init(path: String, pacing: Pacing = .timestamps, fallbackSpeedMetersPerSecond: Double = 1.4,
                horizontalAccuracyMeters: Double = 5, geographicOrigin: GeographicOrigin? = nil, loops: Bool = false,
                timeScale: Double = 1, clock: any BlueDotClock = SystemClock()) {
        self.path = path
        self.pacing = pacing
        self.fallbackSpeedMetersPerSecond = fallbackSpeedMetersPerSecond
        self.horizontalAccuracyMeters = horizontalAccuracyMeters
        origin = geographicOrigin
        super.init(clock: clock, loops: loops, timeScale: timeScale)
    }

    /// Reads the file and turns its first track or route into paced locations.
    override public func loadLocations() async throws -> [Location] {
        let document = try GPXParser.parse(path: path)
        guard let (points, segmentStarts) = document.firstPath() else {
            throw GPXError(file: path, line: nil, message: "no track or route with points")
        }
        return pacedLocations(points: points, segmentStarts: segmentStarts)
    }

    /// The locations this source plays for a path (its points and the indices where segments start), timestamps
    /// in seconds from the first point.
    public func pacedLocations(points: [GPXDocument.Point], segmentStarts: Set<Int>) -> [Location] {
        let origin = origin ?? GeographicOrigin(latitude: points[0].latitude, longitude: points[0].longitude)
        let local = points.map { origin.local(latitude: $0.latitude, longitude: $0.longitude) }
        var result: [Location] = []
        var t = 0.0
        for (i, point) in points.enumerated() {
            var speed: Double?, course: Double?
            if i > 0 {
                let dx = local[i].x - local[i - 1].x, dy = local[i].y - local[i - 1].y
                let distance = hypot(dx, dy)
                let dt = gap(from: points[i - 1], to: point, distance: distance)
                t += dt
                if !segmentStarts.contains(i), dt > 0 {
                    speed = distance / dt
                    let c = atan2(dx, dy) * 180 / .pi
                    course = distance > 0 ? (c < 0 ? c + 360 : c) : nil
                }
            }
            result.append(Location(timestamp: t, x: local[i].x, y: local[i].y, z: point.elevationMeters,
                horizontalAccuracyMeters: horizontalAccuracyMeters, speedMetersPerSecond: speed,
                courseDegrees: course, latitude: point.latitude, longitude: point.longitude,
                attributes: ["gpxLine": String(point.line)]))
        }
        return result
    }

    private func gap(from a: GPXDocument.Point, to b: GPXDocument.Point, distance: Double) -> Double {
        if case .speed(let v) = pacing { return v > 0 ? distance / v : 0 }
        if let ta = a.time, let tb = b.time, tb > ta { return tb - ta }
        return fallbackSpeedMetersPerSecond > 0 ? distance / fallbackSpeedMetersPerSecond : 0
    }
}
