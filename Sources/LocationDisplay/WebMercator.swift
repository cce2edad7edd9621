import BlueDotCore
import FoundationEssentials
import Glibc

/// The spherical Web Mercator projection, EPSG:3857, used by web maps.
///
/// x = R λ, y = R ln tan(π/4 + φ/2) with R the WGS84 semi-major axis (EPSG guidance note 7-2, §1.3.3.2):
/// a sphere by definition of EPSG:3857, a display projection, not the venue's (`GeographicOrigin`).
/// Distances grow by 1/cos φ away from the equator, so a ground radius in metres is `metres / cos φ` map units.
public enum WebMercator {
    /// The latitude limit, degrees, beyond which the projection is clipped (the square world of web maps).
    public static let maximumLatitude = 85.05112878

    /// Projects a latitude and longitude in degrees to Web Mercator metres.
    public static func project(latitude: Double, longitude: Double) -> MapPoint {
        let R = GeographicOrigin.semiMajorAxisMeters
        let phi = min(max(latitude, -maximumLatitude), maximumLatitude) * .pi / 180
        let lambda = longitude * .pi / 180
        return MapPoint(x: R * lambda, y: R * log(tan(.pi / 4 + phi / 2)))
    }

    /// The latitude and longitude in degrees of a Web Mercator point.
    public static func unproject(_ point: MapPoint) -> (latitude: Double, longitude: Double) {
        let R = GeographicOrigin.semiMajorAxisMeters
        let phi = 2 * atan(exp(point.y / R)) - .pi / 2
        return (phi * 180 / .pi, point.x / R * 180 / .pi)
    }

    /// Map units per ground metre at a latitude: 1 / cos φ.
    public static func scaleFactor(latitude: Double) -> Double {
        1 / cos(min(abs(latitude), maximumLatitude) * .pi / 180)
    }
}
