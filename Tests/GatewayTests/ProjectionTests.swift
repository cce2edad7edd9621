import BeaconLocation
import BlueDotCore
import Foundation
import LocationDisplay
import Positioning
import Testing
@testable import Gateway

/// One projection: the gateway's API and feed, the display engine and the web page put a fix at the same place.
/// Before, the gateway projected with the mean Earth radius and the display engine with the semi-major axis: the
/// same fix landed 0.11% apart (11 cm at 100 m from the origin), which this test would have caught.
@Suite struct ProjectionTests {
    let venue = Venue(
        name: "campus", origin: Venue.Origin(latitude: 41.0853, longitude: 29.0447, bearingDegrees: 30),
        anchors: [Anchor(id: "a", x: 0, y: 0, z: 2)])

    /// A fix 100 m and 150 m from the origin, as the gateway serves it (the spine's conversion, then the hub).
    func served(x: Double, y: Double) throws -> Location {
        let hub = LocationHub(clock: ManualClock(start: 0), planBearingDegrees: venue.origin!.bearingDegrees)
        var fix = Location(timestamp: 0, targetID: "t", x: x, y: y, horizontalAccuracyMeters: 1, anchorCount: 3)
        fix.place(on: GeographicOrigin(venue.origin!))
        hub.publish(fix)
        return try #require(hub.current.first)
    }

    @Test(arguments: [(100.0, 0.0), (0.0, 150.0), (-80.0, 60.0)])
    func apiDisplayAndPageAgree(x: Double, y: Double) throws {
        let fix = try served(x: x, y: y)
        let lat = try #require(fix.latitude), lon = try #require(fix.longitude)

        // The display engine, handed the plan point and the venue's origin, projects it itself.
        let display = LocationDisplay(
            dataSource: LocationDataSource(),
            viewport: MapViewport(center: MapPoint(x: 0, y: 0), unitsPerPixel: 1, widthPixels: 100, heightPixels: 100),
            geographicOrigin: GeographicOrigin(venue.origin!), clock: ManualClock(start: 0))
        let onPlan = display.mapPoint(of: Location(timestamp: 0, x: x, y: y, horizontalAccuracyMeters: 1))
        let fromAPI = display.mapPoint(of: Location(timestamp: 0, x: x, y: y, horizontalAccuracyMeters: 1,
            latitude: lat, longitude: lon))
        #expect(abs(onPlan.x - fromAPI.x) < 1e-6 && abs(onPlan.y - fromAPI.y) < 1e-6,
                "display \(onPlan) vs API \(fromAPI) (Web Mercator metres)")

        // The page converts with the origin's metres per degree from /api/venue (app.js `geographic`).
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(VenueDocument(venue).json().utf8)) as? [String: Any])
        let origin = try #require(json["origin"] as? [String: Double])
        let b = origin["bearing"]! * .pi / 180
        let north = y * cos(b) - x * sin(b), east = y * sin(b) + x * cos(b)
        let pageLat = origin["lat"]! + north / origin["metersPerDegreeLat"]!
        let pageLon = origin["lon"]! + east / origin["metersPerDegreeLon"]!
        #expect(abs(pageLat - lat) < 1e-11 && abs(pageLon - lon) < 1e-11, "page (\(pageLat), \(pageLon)) vs API")

        // And back: the inverse lands on the plan point to a millimetre.
        let back = GeographicOrigin(venue.origin!).local(latitude: lat, longitude: lon)
        #expect(abs(back.x - x) < 1e-3 && abs(back.y - y) < 1e-3)
    }

    /// The scale against independent figures: the WGS84 ellipsoid's metres per degree at the origin's latitude
    /// (meridional and prime-vertical radii of curvature, computed here from a and 1/f, not by the code under test).
    @Test func scaleIsTheEllipsoidsAtTheOrigin() throws {
        let fix = try served(x: 0, y: 0)
        #expect(fix.latitude == 41.0853 && fix.longitude == 29.0447)
        let a = 6_378_137.0, f = 1 / 298.257_223_563, e2 = f * (2 - f)
        let phi = 41.0853 * Double.pi / 180
        let w = 1 - e2 * sin(phi) * sin(phi)
        let metersPerDegreeLat = a * (1 - e2) / pow(w, 1.5) * .pi / 180
        // 100 m along the bearing (30° east of north): 86.603 m north, 50 m east.
        let ahead = try served(x: 0, y: 100)
        let dLat = try #require(ahead.latitude) - 41.0853
        #expect(abs(dLat * metersPerDegreeLat - 100 * cos(30 * Double.pi / 180)) < 1e-6)
        // The survey tables' series for a degree of latitude: 111,132.954 − 559.822 cos 2φ + 1.175 cos 4φ metres.
        let series = 111_132.954 - 559.822 * cos(2 * phi) + 1.175 * cos(4 * phi)
        #expect(abs(metersPerDegreeLat - series) < 0.1, "\(metersPerDegreeLat) vs \(series)")
    }
}
