import BlueDotCore
import LocationDisplay
import Testing

@Suite("MapViewport geometry")
struct MapViewportTests {
    let tolerance = 1e-9

    @Test("screen and map points round-trip under rotation")
    func roundTrip() {
        let viewport = MapViewport(center: MapPoint(x: 10, y: 20), unitsPerPixel: 0.05, rotationDegrees: 33,
                                   widthPixels: 800, heightPixels: 600)
        for (sx, sy) in [(0.0, 0.0), (800.0, 600.0), (123.0, 456.0)] {
            let p = viewport.mapPoint(screenX: sx, screenY: sy)
            let back = viewport.screenPoint(of: p)
            #expect(abs(back.x - sx) < 1e-6 && abs(back.y - sy) < 1e-6)
        }
        let centre = viewport.screenPoint(of: viewport.center)
        #expect(abs(centre.x - 400) < tolerance && abs(centre.y - 300) < tolerance)
    }

    @Test("rotation puts the map direction at rotationDegrees up on screen")
    func rotationMeaning() {
        let viewport = MapViewport(center: MapPoint(x: 0, y: 0), unitsPerPixel: 1, rotationDegrees: 90,
                                   widthPixels: 100, heightPixels: 100)
        // A point east (+x, azimuth 90) of the centre appears straight above it.
        let s = viewport.screenPoint(of: MapPoint(x: 10, y: 0))
        #expect(abs(s.x - 50) < 1e-9 && abs(s.y - 40) < 1e-9)
    }

    @Test("visible extent of a rotated screen is the bounding box of its corners")
    func rotatedExtent() {
        let viewport = MapViewport(center: MapPoint(x: 0, y: 0), unitsPerPixel: 1, rotationDegrees: 45,
                                   widthPixels: 200, heightPixels: 100)
        let extent = viewport.visibleExtent
        // Half-diagonal projections: (100 + 50) / sqrt(2) each way.
        let half = 150 / 2.0.squareRoot()
        #expect(abs(extent.maxX - half) < 1e-9 && abs(extent.minY + half) < 1e-9)
        let unrotated = MapViewport(center: MapPoint(x: 5, y: 5), unitsPerPixel: 0.5, widthPixels: 200,
                                    heightPixels: 100).visibleExtent
        #expect(unrotated == MapExtent(minX: -45, minY: -20, maxX: 55, maxY: 30))
    }

    @Test("zoom keeps the point under the fingers fixed; pan moves content with the finger")
    func zoomAndPan() {
        var viewport = MapViewport(center: MapPoint(x: 3, y: 4), unitsPerPixel: 0.1, rotationDegrees: 20,
                                   widthPixels: 640, heightPixels: 480)
        let anchor = viewport.mapPoint(screenX: 100, screenY: 50)
        viewport.zoom(by: 2, aroundScreenX: 100, y: 50)
        #expect(abs(viewport.unitsPerPixel - 0.05) < tolerance)
        let after = viewport.screenPoint(of: anchor)
        #expect(abs(after.x - 100) < 1e-6 && abs(after.y - 50) < 1e-6)
        let p = MapPoint(x: 3, y: 4)
        let before = viewport.screenPoint(of: p)
        viewport.pan(byPixelsX: 30, y: -10)
        let moved = viewport.screenPoint(of: p)
        #expect(abs(moved.x - before.x - 30) < 1e-6 && abs(moved.y - before.y + 10) < 1e-6)
    }

    @Test("1:N scale at 96 DPI")
    func scaleDenominator() {
        var viewport = MapViewport(center: MapPoint(x: 0, y: 0), unitsPerPixel: 1, widthPixels: 1, heightPixels: 1)
        viewport.scaleDenominator = 1000
        #expect(abs(viewport.unitsPerPixel - 1000 * 0.0254 / 96) < 1e-12)
    }
}

@Suite("Projections")
struct ProjectionTests {
    @Test("Web Mercator matches EPSG:3857 reference values and inverts")
    func webMercator() {
        // EPSG:3857 of (lat 52.2297, lon 21.0122), computed with x = R λ, y = R ln tan(π/4 + φ/2).
        let p = WebMercator.project(latitude: 52.2297, longitude: 21.0122)
        #expect(abs(p.x - 2_339_067.40) < 0.01)
        #expect(abs(p.y - 6_841_765.20) < 0.01)
        let back = WebMercator.unproject(p)
        #expect(abs(back.latitude - 52.2297) < 1e-9 && abs(back.longitude - 21.0122) < 1e-9)
        #expect(WebMercator.project(latitude: 0, longitude: 180).x == 20_037_508.342789244)
    }

    @Test("local to geographic respects the bearing and inverts")
    func localGeographic() {
        let origin = GeographicOrigin(latitude: 52.2297, longitude: 21.0122, bearingDegrees: 90)
        // With +y pointing east, 111.32 m along +y is east: longitude grows, latitude stays.
        let g = origin.geographic(x: 0, y: 100)
        #expect(abs(g.latitude - 52.2297) < 1e-9)
        #expect(g.longitude > 21.0122)
        let back = origin.local(latitude: g.latitude, longitude: g.longitude)
        #expect(abs(back.x) < 1e-6 && abs(back.y - 100) < 1e-6)
        // One degree of latitude is 110,574.3 m at the equator and 111,131.78 m at 45° (111,132.954 − 559.822 cos 2φ
        // + 1.175 cos 4φ); one of longitude 111,319.49 m and 78,846.8 m: the tangent plane scales by the WGS84
        // ellipsoid's radii of curvature.
        let equator = GeographicOrigin(latitude: 0, longitude: 0)
        #expect(abs(equator.geographic(x: 0, y: 110_574.3).latitude - 1) < 1e-6)
        #expect(abs(equator.geographic(x: 111_319.49, y: 0).longitude - 1) < 1e-6)
        let mid = GeographicOrigin(latitude: 45, longitude: 0)
        #expect(abs(mid.geographic(x: 0, y: 111_131.78).latitude - 46) < 1e-6)
        #expect(abs(mid.geographic(x: 78_846.8, y: 0).longitude - 1) < 1e-6)
    }
}
