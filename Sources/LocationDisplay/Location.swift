/// One position of one located thing, as a data source reports it and a `LocationDisplay` shows it.
///
/// Positions are in a local right-handed frame in metres (x, y horizontal, z height); with a geographic origin they
/// also carry WGS84 latitude and longitude. Accuracies are 68% radii, the Core Location and Android convention.
public struct Location: Sendable, Hashable {
    /// East-ish local coordinate, metres (the venue's +x axis).
    public var x: Double
    /// North-ish local coordinate, metres (the venue's +y axis).
    public var y: Double
    /// Height above the floor, metres, when known.
    public var z: Double?
    /// WGS84 latitude in degrees, when the source knows a geographic origin.
    public var latitude: Double?
    /// WGS84 longitude in degrees, when the source knows a geographic origin.
    public var longitude: Double?
    /// Floor number, when known.
    public var floor: Int?
    /// Time of the fix in seconds on the source's fixed origin (Unix time by default).
    public var timestamp: Double
    /// Radius in metres of the circle around (x, y) that holds the true position with 68% probability.
    public var horizontalAccuracyMeters: Double
    /// 68% vertical accuracy in metres, when z is known.
    public var verticalAccuracyMeters: Double?
    /// Speed over ground in metres per second, when known.
    public var speedMetersPerSecond: Double?
    /// Course in degrees clockwise from +y (from north with a geographic origin), when known.
    public var courseDegrees: Double?
    /// True when the fix is not current: the last good position, shown grey.
    public var lastKnown: Bool
    /// The located target's id (`self` for the gateway itself, or a tag id).
    public var targetID: String
    /// How many anchors contributed to the fix, when the source knows.
    public var anchorCount: Int?
    /// The id of the room the target is in, when the source knows rooms and the target is in one.
    public var room: String?
    /// The probability that the target is in `room` (or in its most likely room when `room` is absent), when the
    /// source knows rooms.
    public var roomProbability: Double?
    /// Further source properties, such as a room's occupancy for a relaying source.
    public var attributes: [String: String]

    /// Creates a location.
    public init(x: Double, y: Double, z: Double? = nil, latitude: Double? = nil, longitude: Double? = nil,
                floor: Int? = nil, timestamp: Double, horizontalAccuracyMeters: Double,
                verticalAccuracyMeters: Double? = nil, speedMetersPerSecond: Double? = nil,
                courseDegrees: Double? = nil, lastKnown: Bool = false, targetID: String = "self",
                anchorCount: Int? = nil, room: String? = nil, roomProbability: Double? = nil,
                attributes: [String: String] = [:]) {
        self.x = x
        self.y = y
        self.z = z
        self.latitude = latitude
        self.longitude = longitude
        self.floor = floor
        self.timestamp = timestamp
        self.horizontalAccuracyMeters = horizontalAccuracyMeters
        self.verticalAccuracyMeters = verticalAccuracyMeters
        self.speedMetersPerSecond = speedMetersPerSecond
        self.courseDegrees = courseDegrees
        self.lastKnown = lastKnown
        self.targetID = targetID
        self.anchorCount = anchorCount
        self.room = room
        self.roomProbability = roomProbability
        self.attributes = attributes
    }

    /// True when the location reports movement with a course: speed above `threshold` m/s and a course.
    public func isMoving(threshold: Double = 0.2) -> Bool {
        guard let speed = speedMetersPerSecond, courseDegrees != nil else { return false }
        return speed > threshold
    }
}
