import BlueDotCore
import LocationDisplay
import Positioning

/// The one conversion between the engine's `LocationFix` (the location format of docs/formats.md) and the display
/// engine's `Location`.
extension Location {
    /// The attribute holding the Unix time of the newest advertising report behind a fix (report-to-fix latency).
    public static let reportedAtAttribute = "reportedAt"

    /// The display's view of an engine fix: same position, accuracy, motion, flags and room, `anchors` as `anchorCount`.
    /// With `origin` (and a fix without coordinates of its own), latitude and longitude are filled in and the course
    /// is turned from the plan's +y to true north, as `Location.courseDegrees` and the location format define it.
    /// `reportedAt` goes in the attributes.
    public init(_ fix: LocationFix, origin: GeographicOrigin? = nil, reportedAt: Double? = nil) {
        var latitude = fix.latitude, longitude = fix.longitude, course = fix.course
        if latitude == nil || longitude == nil, let origin {
            (latitude, longitude) = origin.geographic(x: fix.x, y: fix.y)
            course = course.map { Degrees.normalized($0 + origin.bearingDegrees) }
        }
        self.init(x: fix.x, y: fix.y, z: fix.z, latitude: latitude, longitude: longitude, floor: fix.floor,
                  timestamp: fix.t, horizontalAccuracyMeters: fix.horizontalAccuracy,
                  verticalAccuracyMeters: fix.verticalAccuracy, speedMetersPerSecond: fix.speed,
                  courseDegrees: course, lastKnown: fix.lastKnown, targetID: fix.target, anchorCount: fix.anchors,
                  room: fix.room, roomProbability: fix.roomProbability, attributes: reportedAt.map { [Self.reportedAtAttribute: "\($0)"] } ?? [:])
    }

    /// The Unix time of the newest report behind this location, when its source knows it.
    public var reportedAt: Double? { attributes[Self.reportedAtAttribute].flatMap(Double.init) }

    /// This location on the venue plan: local metres only (no latitude and longitude, so a display keeps to the
    /// plan and does not switch to Web Mercator), its course turned back from north onto the plan's +y.
    public func onPlan(bearingDegrees: Double) -> Location {
        var plan = self
        if latitude != nil, let course = courseDegrees {
            plan.courseDegrees = Degrees.normalized(course - bearingDegrees)
        }
        plan.latitude = nil
        plan.longitude = nil
        return plan
    }
}

extension LocationFix {
    /// A location in the location format: the inverse of `Location.init(_:origin:reportedAt:)`.
    public init(_ location: Location) {
        self.init(t: location.timestamp, target: location.targetID, x: location.x, y: location.y, z: location.z,
                  floor: location.floor, horizontalAccuracy: location.horizontalAccuracyMeters,
                  verticalAccuracy: location.verticalAccuracyMeters, speed: location.speedMetersPerSecond,
                  course: location.courseDegrees, lastKnown: location.lastKnown, anchors: location.anchorCount ?? 0,
                  latitude: location.latitude, longitude: location.longitude, room: location.room,
                  roomProbability: location.roomProbability)
    }
}

extension GeographicOrigin {
    /// The display's origin for a venue's `origin`: the venue's one projection (`GeographicOrigin.geographic`).
    public init(_ origin: Venue.Origin) {
        self.init(latitude: origin.latitude, longitude: origin.longitude, bearingDegrees: origin.bearingDegrees)
    }
}
