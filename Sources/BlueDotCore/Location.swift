/// One position of one located thing: the one location value of BlueDot, from the engine that makes it to every
/// output (the web feed and API, MQTT, Home Assistant, the history, location files) and to the display engine.
///
/// Positions are in the venue's local right-handed frame in metres (x, y horizontal, z height); with a geographic
/// origin they also carry WGS84 latitude and longitude. Accuracies are 68% radii, the Core Location and Android
/// convention. It is a line of the location stream of `docs/formats.md`: `LocationWriter` and `LocationReader`
/// (Formats) map it to and from that text, field for field.
public struct Location: Sendable, Hashable {
    /// Time of the fix in seconds on the observations' origin (Unix time for live inputs and the datasets): the
    /// engine uses only observations at or before it.
    public var timestamp: Double
    /// The located target's id (`self` for the gateway itself, or a tag id).
    public var targetID: String
    /// East-ish local coordinate, metres (the venue's +x axis).
    public var x: Double
    /// North-ish local coordinate, metres (the venue's +y axis).
    public var y: Double
    /// Height above the floor, metres, when known.
    public var z: Double?
    /// Floor number, when the venue has floors or anchors carry them.
    public var floor: Int?
    /// Radius in metres of the circle around (x, y) that holds the true position with 68% probability.
    public var horizontalAccuracyMeters: Double
    /// 68% vertical accuracy in metres, when z is known.
    public var verticalAccuracyMeters: Double?
    /// Speed over ground in metres per second, when known.
    public var speedMetersPerSecond: Double?
    /// Course in degrees clockwise from +y (from true north when the location carries latitude and longitude),
    /// when known.
    public var courseDegrees: Double?
    /// True when the fix is not current (too few anchors heard, target lost): the last good position, shown grey.
    public var lastKnown: Bool
    /// How many anchors contributed (0 for a source without anchors: a GPX track, a simulation).
    public var anchorCount: Int
    /// WGS84 latitude in degrees, when the source knows a geographic origin.
    public var latitude: Double?
    /// WGS84 longitude in degrees, when the source knows a geographic origin.
    public var longitude: Double?
    /// The id of the room the target is in (after the engine's hysteresis), when the venue has rooms and the
    /// target is in one.
    public var room: String?
    /// The probability that the target is in `room` (or in its most likely room when `room` is absent), from this
    /// fix's position and accuracy; absent when the source knows no rooms.
    public var roomProbability: Double?
    /// Degrees clockwise from true north that the device points, when a heading source (a compass, gpsd's ATT)
    /// reports it. Unlike `courseDegrees` it needs no motion.
    public var headingDegrees: Double?
    /// What made this fix when several sources can (the indoor/outdoor hand-over); nil for a single-source output.
    public var source: PositionSource?
    /// Whether the target is on the premises, when the source decides it (a location source with a presence rule).
    public var presence: Presence?
    /// Clock seconds since the target was last heard, while it is silent (`lastKnown`); nil while it is heard.
    public var silentForSeconds: Double?
    /// The site (one building's solver, `bluedot/<site>/...`) whose fix this is, when a view of many sites shows it;
    /// nil from a gateway or a site's own solver.
    public var site: String?
    /// The Unix time (on the daemon's clock) the newest report behind this fix arrived, when the source knows it:
    /// the start of the report-to-fix latency. Not part of the location format.
    public var reportedAt: Double?
    /// Further source properties, such as a room's occupancy for a relaying source.
    public var attributes: [String: String]
    /// Where the target was at an earlier fix (`SmoothedPosition.timestamp`), smoothed with the fixes since, when
    /// the source decides rooms behind its fix (`EngineConfiguration.roomLagSeconds`): the moment and place this
    /// fix's room describes, and what the history keeps for that earlier fix. The fix's own position stays the live
    /// dot. Not part of the location format.
    public var smoothed: SmoothedPosition?

    /// Creates a location.
    public init(timestamp: Double, targetID: String = "self", x: Double, y: Double, z: Double? = nil,
                floor: Int? = nil, horizontalAccuracyMeters: Double, verticalAccuracyMeters: Double? = nil,
                speedMetersPerSecond: Double? = nil, courseDegrees: Double? = nil, lastKnown: Bool = false,
                anchorCount: Int = 0, latitude: Double? = nil, longitude: Double? = nil, room: String? = nil,
                roomProbability: Double? = nil, headingDegrees: Double? = nil, source: PositionSource? = nil,
                presence: Presence? = nil, silentForSeconds: Double? = nil, site: String? = nil,
                reportedAt: Double? = nil, attributes: [String: String] = [:]) {
        self.timestamp = timestamp
        self.targetID = targetID
        self.x = x
        self.y = y
        self.z = z
        self.floor = floor
        self.horizontalAccuracyMeters = horizontalAccuracyMeters
        self.verticalAccuracyMeters = verticalAccuracyMeters
        self.speedMetersPerSecond = speedMetersPerSecond
        self.courseDegrees = courseDegrees
        self.lastKnown = lastKnown
        self.anchorCount = anchorCount
        self.latitude = latitude
        self.longitude = longitude
        self.room = room
        self.roomProbability = roomProbability
        self.headingDegrees = headingDegrees
        self.source = source
        self.presence = presence
        self.silentForSeconds = silentForSeconds
        self.site = site
        self.reportedAt = reportedAt
        self.attributes = attributes
    }
}

/// An earlier fix's position smoothed with the fixes after it (`Location.smoothed`).
public struct SmoothedPosition: Sendable, Hashable {
    /// The earlier fix's `timestamp`.
    public var timestamp: Double
    /// Venue-plan metres, as `Location.x` and `y`.
    public var x: Double
    public var y: Double
    /// Degrees, when the venue has a geographic origin (`Location.place(on:)`).
    public var latitude: Double?
    public var longitude: Double?

    /// Creates a smoothed position.
    public init(timestamp: Double, x: Double, y: Double, latitude: Double? = nil, longitude: Double? = nil) {
        self.timestamp = timestamp
        self.x = x
        self.y = y
        self.latitude = latitude
        self.longitude = longitude
    }
}
