import FoundationEssentials
import Glibc

/// Ties a venue's local frame to WGS84: where local (0, 0) is and which way its +y axis points. The one
/// projection between venue metres and latitude/longitude: the display engine, the gateway's API and feed, the
/// venue importers (Formats' `LocalTangentPlane`) and the web page (through `/api/venue`'s scale factors) all use it.
///
/// The model is a local tangent plane on the WGS84 ellipsoid: east and north metres are scaled to degrees by
/// the ellipsoid's radii of curvature at the origin, the meridional radius M for latitude and the prime-vertical
/// radius N (times cos φ₀) for longitude. Those are the exact local scales, so over a building (hundreds of metres)
/// the error is second order, under a millimetre. A sphere, of either the mean radius or the semi-major axis, is
/// off in scale by up to 0.7% depending on latitude: 11 cm at 100 m from the origin with the mean radius at 41° N.
/// Source: NGA.STND.0036 (WGS84, a = 6,378,137 m, 1/f = 298.257223563); radii of curvature as in Snyder, *Map
/// Projections: A Working Manual*, USGS PP 1395 (1987), eq. 4-18 and 4-20.
public struct GeographicOrigin: Sendable, Hashable {
    /// Latitude of local (0, 0), degrees.
    public var latitude: Double
    /// Longitude of local (0, 0), degrees.
    public var longitude: Double
    /// Azimuth of the local +y axis, degrees clockwise from true north.
    public var bearingDegrees: Double

    /// WGS84 semi-major axis, metres.
    public static let semiMajorAxisMeters = 6_378_137.0
    /// WGS84 first eccentricity squared, e² = f(2 − f) with 1/f = 298.257223563.
    public static let eccentricitySquared: Double = {
        let f = 1 / 298.257_223_563
        return f * (2 - f)
    }()

    /// Creates an origin.
    public init(latitude: Double, longitude: Double, bearingDegrees: Double = 0) {
        self.latitude = latitude
        self.longitude = longitude
        self.bearingDegrees = bearingDegrees
    }

    /// Metres per degree of latitude (north) and of longitude (east) at the origin: M·π/180 and N·cos φ₀·π/180.
    public var metersPerDegree: (north: Double, east: Double) {
        let phi0 = latitude * .pi / 180
        let a = Self.semiMajorAxisMeters, e2 = Self.eccentricitySquared
        let w = 1 - e2 * sin(phi0) * sin(phi0)
        let M = a * (1 - e2) / (w * w.squareRoot())  // meridional radius of curvature
        let N = a / w.squareRoot()                    // prime-vertical radius of curvature
        return (M * .pi / 180, N * cos(phi0) * .pi / 180)
    }

    /// Latitude and longitude (degrees) of a local point (metres).
    public func geographic(x: Double, y: Double) -> (latitude: Double, longitude: Double) {
        // Rotate local (x, y) into (east, north): +y points at `bearing` clockwise from north.
        let b = bearingDegrees * .pi / 180
        let east = x * cos(b) + y * sin(b)
        let north = -x * sin(b) + y * cos(b)
        let scale = metersPerDegree
        return (latitude + north / scale.north, longitude + east / scale.east)
    }

    /// The local point (metres) of a latitude and longitude (degrees): the inverse of `geographic(x:y:)`.
    public func local(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        let scale = metersPerDegree
        let north = (latitude - self.latitude) * scale.north
        let east = (longitude - self.longitude) * scale.east
        let b = bearingDegrees * .pi / 180
        return (east * cos(b) - north * sin(b), east * sin(b) + north * cos(b))
    }
}
