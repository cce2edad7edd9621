import BlueDotCore
import Positioning

/// The projection between WGS84 latitude/longitude and a venue's local metres about its `origin`, in the venue's
/// own types: BlueDotCore's `GeographicOrigin` (the one projection of BlueDot, which the display, the gateway's
/// API and the web page use too), so a point imported here is drawn where it was.
public struct LocalTangentPlane: Sendable, Hashable {
    /// The venue's origin: latitude and longitude of local (0, 0) and the bearing of +y.
    public var origin: Venue.Origin

    /// A plane about `origin`.
    public init(origin: Venue.Origin) {
        self.origin = origin
    }

    private var projection: GeographicOrigin {
        GeographicOrigin(latitude: origin.latitude, longitude: origin.longitude, bearingDegrees: origin.bearingDegrees)
    }

    /// Metres per degree of latitude (north) and of longitude (east) at the origin.
    public var metersPerDegree: (north: Double, east: Double) { projection.metersPerDegree }

    /// The local point (metres) of a latitude and longitude (degrees).
    public func local(latitude: Double, longitude: Double) -> Venue.PlanPoint {
        let p = projection.local(latitude: latitude, longitude: longitude)
        return Venue.PlanPoint(x: p.x, y: p.y)
    }

    /// Latitude and longitude (degrees) of a local point (metres): the inverse of `local(latitude:longitude:)`.
    public func geographic(x: Double, y: Double) -> (latitude: Double, longitude: Double) {
        projection.geographic(x: x, y: y)
    }
}
