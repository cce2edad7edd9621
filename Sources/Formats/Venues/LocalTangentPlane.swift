import Foundation
import Positioning

/// The projection between WGS84 latitude/longitude and a venue's local metres about its `origin`: a local tangent
/// plane on the WGS84 ellipsoid, east and north metres scaled to degrees by the radii of curvature at the origin
/// (meridional M for latitude, prime-vertical N times cos φ₀ for longitude), +y turned `bearing` degrees clockwise
/// from north.
///
/// It is the same model, formula for formula, as `GeographicOrigin` in LocationDisplay (the projection the
/// display, the gateway's API and the web page use to turn venue metres back into latitude/longitude), so that a
/// point imported here is drawn where it was: `Formats` does not depend on `LocationDisplay`, hence this copy, and
/// `IMDFImportTests` pins both to the same numbers. Over a building the error of the model is second order (under
/// a millimetre at a few hundred metres). Sources: NGA.STND.0036 (WGS84: a = 6,378,137 m, 1/f = 298.257223563);
/// Snyder, *Map Projections: A Working Manual*, USGS PP 1395 (1987), eq. 4-18 and 4-20.
public struct LocalTangentPlane: Sendable, Hashable {
    /// The venue's origin: latitude and longitude of local (0, 0) and the bearing of +y.
    public var origin: Venue.Origin

    /// A plane about `origin`.
    public init(origin: Venue.Origin) {
        self.origin = origin
    }

    /// Metres per degree of latitude (north) and of longitude (east) at the origin: M·π/180 and N·cos φ₀·π/180.
    public var metersPerDegree: (north: Double, east: Double) {
        let phi0 = origin.latitude * .pi / 180
        let a = 6_378_137.0
        let f = 1 / 298.257_223_563
        let e2 = f * (2 - f)
        let w = 1 - e2 * sin(phi0) * sin(phi0)
        let M = a * (1 - e2) / (w * w.squareRoot())  // meridional radius of curvature
        let N = a / w.squareRoot()                    // prime-vertical radius of curvature
        return (M * .pi / 180, N * cos(phi0) * .pi / 180)
    }

    /// The local point (metres) of a latitude and longitude (degrees).
    public func local(latitude: Double, longitude: Double) -> Venue.PlanPoint {
        let scale = metersPerDegree
        let north = (latitude - origin.latitude) * scale.north
        let east = (longitude - origin.longitude) * scale.east
        let b = origin.bearingDegrees * .pi / 180
        return Venue.PlanPoint(x: east * cos(b) - north * sin(b), y: east * sin(b) + north * cos(b))
    }

    /// Latitude and longitude (degrees) of a local point (metres): the inverse of `local(latitude:longitude:)`.
    public func geographic(x: Double, y: Double) -> (latitude: Double, longitude: Double) {
        let b = origin.bearingDegrees * .pi / 180
        let east = x * cos(b) + y * sin(b)
        let north = -x * sin(b) + y * cos(b)
        let scale = metersPerDegree
        return (origin.latitude + north / scale.north, origin.longitude + east / scale.east)
    }
}
