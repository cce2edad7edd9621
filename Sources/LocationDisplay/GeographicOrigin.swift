import Foundation

/// Ties a venue's local frame to WGS84: where local (0, 0) is and which way its +y axis points.
///
/// The conversion is a local tangent plane (equirectangular about the origin), accurate to centimetres over a
/// building; `bearingDegrees` is the azimuth of +y, clockwise from true north, as in the venue file.
public struct GeographicOrigin: Sendable, Hashable {
    /// Latitude of local (0, 0), degrees.
    public var latitude: Double
    /// Longitude of local (0, 0), degrees.
    public var longitude: Double
    /// Azimuth of the local +y axis, degrees clockwise from true north.
    public var bearingDegrees: Double

    /// WGS84 semi-major axis in metres, the radius used for the tangent plane.
    public static let earthRadiusMeters = 6_378_137.0

    /// Creates an origin.
    public init(latitude: Double, longitude: Double, bearingDegrees: Double = 0) {
        self.latitude = latitude
        self.longitude = longitude
        self.bearingDegrees = bearingDegrees
    }

    /// Latitude and longitude (degrees) of a local point (metres).
    public func geographic(x: Double, y: Double) -> (latitude: Double, longitude: Double) {
        // Rotate local (x, y) into (east, north): +y points at `bearing` clockwise from north.
        let b = bearingDegrees * .pi / 180
        let east = x * cos(b) + y * sin(b)
        let north = -x * sin(b) + y * cos(b)
        let R = Self.earthRadiusMeters
        let phi0 = latitude * .pi / 180
        let latitude = self.latitude + (north / R) * 180 / .pi
        let longitude = self.longitude + (east / (R * cos(phi0))) * 180 / .pi
        return (latitude, longitude)
    }

    /// The local point (metres) of a latitude and longitude (degrees): the inverse of `geographic(x:y:)`.
    public func local(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        let R = Self.earthRadiusMeters
        let phi0 = self.latitude * .pi / 180
        let north = (latitude - self.latitude) * .pi / 180 * R
        let east = (longitude - self.longitude) * .pi / 180 * R * cos(phi0)
        let b = bearingDegrees * .pi / 180
        return (east * cos(b) - north * sin(b), east * sin(b) + north * cos(b))
    }
}
