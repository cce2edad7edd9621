/// One estimated position of one target: a line of the location stream of `docs/formats.md`.
public struct LocationFix: Sendable, Hashable {
    /// Time of the fix, seconds on the observations' origin; uses only observations at or before it.
    public var t: Double
    /// The target located.
    public var target: String
    /// Position in the venue's local frame, metres.
    public var x: Double, y: Double
    /// Height, metres, when estimated.
    public var z: Double?
    /// Floor, when the venue has floors or anchors carry them.
    public var floor: Int?
    /// Radius, metres, of the circle around (x, y) holding the true position with 68% probability.
    public var horizontalAccuracy: Double
    /// 68% vertical accuracy, metres, when z is estimated.
    public var verticalAccuracy: Double?
    /// Speed, m/s, when known.
    public var speed: Double?
    /// Course, degrees clockwise from +y (or north with a geographic origin), when known.
    public var course: Double?
    /// True when the fix is not current (too few anchors heard, target lost).
    public var lastKnown: Bool
    /// How many anchors contributed.
    public var anchors: Int
    /// WGS84 latitude and longitude, when the venue has an origin.
    public var latitude: Double?, longitude: Double?
    /// The id of the venue room the target is in (after hysteresis, `RoomTracker`), when the venue has rooms and
    /// the target is in one.
    public var room: String?
    /// The probability that the target is in `room` (or, with no room, in the most likely one), from this fix's
    /// position and accuracy; absent when the venue has no rooms.
    public var roomProbability: Double?

    /// Creates a fix.
    public init(t: Double, target: String, x: Double, y: Double, z: Double? = nil, floor: Int? = nil,
                horizontalAccuracy: Double, verticalAccuracy: Double? = nil, speed: Double? = nil,
                course: Double? = nil, lastKnown: Bool = false, anchors: Int, latitude: Double? = nil,
                longitude: Double? = nil, room: String? = nil, roomProbability: Double? = nil) {
        self.t = t
        self.target = target
        self.x = x
        self.y = y
        self.z = z
        self.floor = floor
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.lastKnown = lastKnown
        self.anchors = anchors
        self.latitude = latitude
        self.longitude = longitude
        self.room = room
        self.roomProbability = roomProbability
    }
}
