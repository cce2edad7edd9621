import LocationDisplay
import Positioning

extension Location {
    /// The display's view of an engine fix: same position, accuracy, motion and flags, `anchors` as
    /// `anchorCount`. Latitude and longitude come from the fix, or from `origin` when the fix has none.
    public init(_ fix: LocationFix, origin: GeographicOrigin? = nil) {
        var latitude = fix.latitude, longitude = fix.longitude
        if latitude == nil || longitude == nil, let origin {
            (latitude, longitude) = origin.geographic(x: fix.x, y: fix.y)
        }
        self.init(x: fix.x, y: fix.y, z: fix.z, latitude: latitude, longitude: longitude, floor: fix.floor,
                  timestamp: fix.t, horizontalAccuracyMeters: fix.horizontalAccuracy,
                  verticalAccuracyMeters: fix.verticalAccuracy, speedMetersPerSecond: fix.speed,
                  courseDegrees: fix.course, lastKnown: fix.lastKnown, targetID: fix.target, anchorCount: fix.anchors)
    }
}

extension GeographicOrigin {
    /// The display's origin for a venue's `origin`.
    public init(_ origin: Venue.Origin) {
        self.init(latitude: origin.latitude, longitude: origin.longitude, bearingDegrees: origin.bearingDegrees)
    }
}
