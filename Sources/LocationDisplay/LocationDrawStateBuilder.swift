import BlueDotCore
/// Turns a display's state into the `LocationDrawState` a renderer reads.
struct LocationDrawStateBuilder {
    var location: Location
    var mapLocation: MapPoint
    var latitude: Double?
    var viewport: MapViewport
    var settings: LocationDisplaySettings
    var mode: AutoPanMode
    var heading: Double?
    var stale: Bool
    var pingSequence: Int

    func build() -> LocationDrawState {
        let grey = location.lastKnown || stale
        let moving = location.isMoving(threshold: settings.movingSpeedThreshold)
        let symbol: LocationSymbol
        var direction = 0.0
        if grey {
            symbol = .acquiring
        } else if mode == .compassNavigation, let heading {
            symbol = .heading
            direction = heading
        } else if settings.useCourseSymbolOnMovement, moving, let course = location.courseDegrees {
            symbol = .course
            direction = course
        } else {
            symbol = .default
        }
        let radius = location.horizontalAccuracyMeters * (latitude.map(WebMercator.scaleFactor(latitude:)) ?? 1)
        let screen = viewport.screenPoint(of: mapLocation)
        let rotation = symbol == .default || symbol == .acquiring ? 0 : Degrees.normalized(direction - viewport.rotationDegrees)
        return LocationDrawState(
            symbol: symbol, mapLocation: mapLocation, screenX: screen.x, screenY: screen.y,
            symbolRotationDegrees: rotation, accuracyRadiusMapUnits: radius,
            accuracyRadiusPixels: radius / viewport.unitsPerPixel, isGrey: grey,
            ping: settings.showPingAnimation && !grey, pingSequence: pingSequence, floor: location.floor)
    }
}
