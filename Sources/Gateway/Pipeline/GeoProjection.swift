import Foundation
import Positioning

/// Local venue metres to WGS84 around the venue's origin: a local tangent plane (equirectangular, exact to
/// millimetres over a building), +y at `bearing` degrees clockwise from true north and +x 90° clockwise from +y.
///
/// north = y·cos b − x·sin b, east = y·sin b + x·cos b; lat = lat₀ + north / R, lon = lon₀ + east / (R·cos lat₀),
/// with R the WGS84 mean radius (6,371,008.8 m).
public struct GeoProjection: Sendable, Hashable {
    /// The venue's origin.
    public var origin: Venue.Origin
    private static let earthRadiusMeters = 6_371_008.8

    /// Creates a projection around `origin`.
    public init(origin: Venue.Origin) { self.origin = origin }

    /// Latitude and longitude (degrees) of local point (x, y).
    public func latLon(x: Double, y: Double) -> (lat: Double, lon: Double) {
        let b = origin.bearingDegrees * .pi / 180
        let north = y * cos(b) - x * sin(b)
        let east = y * sin(b) + x * cos(b)
        let lat = origin.latitude + north / Self.earthRadiusMeters * 180 / .pi
        let lon = origin.longitude + east / (Self.earthRadiusMeters * cos(origin.latitude * .pi / 180)) * 180 / .pi
        return (lat, lon)
    }

    /// `fix` with latitude and longitude filled in and its course turned from +y to true north (formats.md).
    public func geographic(_ fix: LocationFix) -> LocationFix {
        guard fix.latitude == nil else { return fix }
        var out = fix
        let (lat, lon) = latLon(x: fix.x, y: fix.y)
        out.latitude = lat
        out.longitude = lon
        if let course = fix.course {
            let north = (course + origin.bearingDegrees).truncatingRemainder(dividingBy: 360)
            out.course = north < 0 ? north + 360 : north
        }
        return out
    }
}
