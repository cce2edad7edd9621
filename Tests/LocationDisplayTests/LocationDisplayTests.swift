import BlueDotCore
import LocationDisplay
import Testing

@Suite("LocationDisplay auto-pan and drawing")
struct LocationDisplayTests {
    /// 100 x 100 px at 1 m per px, centred on the origin: the screen shows [-50, 50] m both ways.
    func makeDisplay(settings: LocationDisplaySettings = .init(), clock: ManualClock = ManualClock(),
                     origin: GeographicOrigin? = nil) -> LocationDisplay {
        LocationDisplay(dataSource: ScriptedSource(),
                        viewport: MapViewport(center: MapPoint(x: 0, y: 0), unitsPerPixel: 1, widthPixels: 100,
                                              heightPixels: 100),
                        settings: settings, geographicOrigin: origin, clock: clock)
    }

    @Test("recenter: recentres exactly when the dot leaves the wander extent", arguments: [0.5, 1.0])
    func recenterAtWanderEdge(factor: Double) {
        let display = makeDisplay(settings: .init(wanderExtentFactor: factor))
        display.autoPanMode = .recenter
        display.receive(fix(0, 0))  // the first update recentres (a no-op here)
        let edge = 50 * factor       // the wander extent is [-edge, edge] m
        display.receive(fix(edge, 0))
        #expect(display.viewport.center == MapPoint(x: 0, y: 0))
        display.receive(fix(0, -edge))
        #expect(display.viewport.center == MapPoint(x: 0, y: 0))
        display.receive(fix(edge + 0.001, 0))
        #expect(display.viewport.center == MapPoint(x: edge + 0.001, y: 0))
    }

    @Test("recenter with factor 0 recentres on every update")
    func recenterEveryUpdate() {
        let display = makeDisplay(settings: .init(wanderExtentFactor: 0))
        display.autoPanMode = .recenter
        display.receive(fix(0.5, 0.25))
        display.receive(fix(0.75, 0.5))
        #expect(display.viewport.center == MapPoint(x: 0.75, y: 0.5))
    }

    @Test("the wander extent turns with the map")
    func rotatedWanderExtent() {
        let display = makeDisplay()
        display.userRotate(toDegrees: 45)
        display.autoPanMode = .recenter
        display.receive(fix(0, 0))
        // (20, 20) is 28.3 m to the upper right along the rotated screen's up axis: |up| = 28.3 > 25 leaves.
        display.receive(fix(20, 20))
        #expect(display.viewport.center == MapPoint(x: 20, y: 20))
    }

    @Test("navigation pins the dot at the horizontal centre and the height factor, rotated to the course")
    func navigationAnchor() {
        let display = makeDisplay()
        display.autoPanMode = .navigation
        display.receive(fix(30, 40, speed: 1.2, course: 60))
        let viewport = display.viewport
        #expect(abs(viewport.rotationDegrees - 60) < 1e-12)
        let screen = viewport.screenPoint(of: MapPoint(x: 30, y: 40))
        #expect(abs(screen.x - 50) < 1e-9)
        #expect(abs(screen.y - (100 - 12.5)) < 1e-9)
        // Standing still keeps the rotation.
        display.receive(fix(31, 40, speed: 0, course: 200))
        #expect(abs(display.viewport.rotationDegrees - 60) < 1e-12)
    }

    @Test("compass navigation turns the map with the heading and centres the dot")
    func compassNavigation() {
        let display = makeDisplay()
        display.autoPanMode = .compassNavigation
        display.receive(heading: 120)
        display.receive(fix(5, 5))
        #expect(display.viewport.rotationDegrees == 120)
        #expect(display.viewport.center == MapPoint(x: 5, y: 5))
        #expect(display.drawState?.symbol == .heading)
    }

    @Test("initialZoomScale applies on the first update after auto-pan is switched on, once")
    func initialZoom() {
        let display = makeDisplay(settings: .init(initialZoomScale: 500))
        display.receive(fix(1, 1))
        #expect(display.viewport.unitsPerPixel == 1)
        display.autoPanMode = .recenter
        display.receive(fix(1, 1))
        #expect(abs(display.viewport.scaleDenominator - 500) < 1e-9)
        display.userZoom(by: 2, aroundScreenX: 50, y: 50)
        display.autoPanMode = .recenter
        display.receive(fix(1, 1))
        #expect(abs(display.viewport.scaleDenominator - 500) < 1e-9)
    }

    @Test("a user pan or zoom turns auto-pan off and reports it")
    func userPanResetsToOff() async {
        let display = makeDisplay()
        let changes = display.autoPanModeChanges
        display.autoPanMode = .navigation
        display.userPan(byPixelsX: 10, y: 0)
        #expect(display.autoPanMode == .off)
        display.receive(fix(300, 300))
        #expect(display.viewport.center == MapPoint(x: -10, y: 0))
        display.autoPanMode = .recenter
        display.userZoom(by: 1.5, aroundScreenX: 0, y: 0)
        let seen = await collect(changes, count: 4)
        #expect(seen == [
            AutoPanModeChange(from: .off, to: .navigation, cause: .program),
            AutoPanModeChange(from: .navigation, to: .off, cause: .userInteraction),
            AutoPanModeChange(from: .off, to: .recenter, cause: .program),
            AutoPanModeChange(from: .recenter, to: .off, cause: .userInteraction),
        ])
    }

    @Test("symbols: course when moving, grey when last-known or stale after the timeout")
    func symbolsAndStaleness() {
        let clock = ManualClock(start: 1000)
        let display = makeDisplay(settings: .init(useCourseSymbolOnMovement: true, showPingAnimation: true,
                                                  staleAfterSeconds: 5), clock: clock)
        #expect(display.drawState == nil)
        display.receive(fix(0, 0))
        #expect(display.drawState?.symbol == .default)
        display.receive(fix(1, 0, speed: 1, course: 90))
        var state = display.drawState
        #expect(state?.symbol == .course)
        #expect(state?.symbolRotationDegrees == 90)
        #expect(state?.ping == true && state?.pingSequence == 2)
        clock.advance(by: 5)
        #expect(display.drawState?.isGrey == false)
        clock.advance(by: 0.001)
        state = display.drawState
        #expect(state?.isGrey == true && state?.symbol == .acquiring && state?.ping == false)
        display.receive(fix(1, 0, lastKnown: true))
        #expect(display.drawState?.symbol == .acquiring)
    }

    @Test("accuracy circle in map units and pixels; Web Mercator with an origin")
    func accuracyCircle() {
        let local = makeDisplay()
        local.userZoom(by: 4, aroundScreenX: 50, y: 50)
        local.receive(fix(0, 0, accuracy: 2))
        #expect(local.drawState?.accuracyRadiusMapUnits == 2)
        #expect(local.drawState?.accuracyRadiusPixels == 8)
        let origin = GeographicOrigin(latitude: 60, longitude: 10)
        let projected = makeDisplay(origin: origin)
        projected.receive(fix(0, 0, accuracy: 2))
        let state = projected.drawState
        // At 60° latitude Web Mercator stretches distances by 1 / cos 60° = 2.
        #expect(abs((state?.accuracyRadiusMapUnits ?? 0) - 4) < 1e-9)
        let expected = WebMercator.project(latitude: 60, longitude: 10)
        #expect(abs((projected.mapLocation?.x ?? 0) - expected.x) < 1e-6)
        #expect(abs((projected.mapLocation?.y ?? 0) - expected.y) < 1e-6)
    }

    @Test("start follows the source's locations")
    func followsSource() async throws {
        let display = makeDisplay()
        let viewports = display.viewportChanges
        display.autoPanMode = .recenter
        try await display.start()
        display.dataSource?.didUpdate(fix(7, 8))
        let first = await collect(viewports, count: 1)
        #expect(first.first?.center == MapPoint(x: 7, y: 8))
        #expect(display.location?.x == 7)
        await display.stop()
        #expect(display.dataSource?.status == .stopped)
    }
}
