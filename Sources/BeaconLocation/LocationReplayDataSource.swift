import BlueDotCore
import Formats
import LocationDisplay
import Positioning

/// Plays a location JSONL file (the location stream of `docs/formats.md`) as a data source, paced by its `t`
/// values on an injected clock, keeping the recorded timestamps.
///
/// The file is read on `start()` with Formats' `LocationReader`; a missing or malformed file fails the start
/// with its `JSONLinesError` (file and line). With `target`, only that target's fixes are played.
public final class LocationReplayDataSource: PlaybackLocationDataSource, @unchecked Sendable {
    /// The JSONL file.
    public let path: String
    /// The target to play, or `nil` for every line.
    public let target: String?
    private let origin: GeographicOrigin?

    /// Creates a replay of `path`; `origin` adds latitude and longitude to fixes without them.
    public init(path: String, target: String? = "self", origin: GeographicOrigin? = nil, loops: Bool = false,
                timeScale: Double = 1, clock: any BlueDotClock = SystemClock()) {
        self.path = path
        self.target = target
        self.origin = origin
        super.init(clock: clock, loops: loops, timeScale: timeScale, restampsToClock: false)
    }

    /// Reads the file and returns its locations (for `target`), placed on the earth by `origin`.
    override public func loadLocations() async throws -> [Location] {
        var locations = try LocationReader.read(path: path).filter { target == nil || $0.targetID == target }
        if let origin {
            for i in locations.indices { locations[i].place(on: origin) }
        }
        return locations
    }
}
