import BlueDotCore
/// The auto-pan decisions of `LocationDisplay`, as a pure function of the viewport and one update.
struct AutoPanner {
    var settings: LocationDisplaySettings

    /// Moves `viewport` for an update with the dot at `dot` under `mode`.
    func apply(mode: AutoPanMode, to viewport: inout MapViewport, dot: MapPoint, location: Location,
               heading: Double?, firstUpdate: Bool) {
        guard mode != .off else { return }
        if firstUpdate, let scale = settings.initialZoomScale { viewport.scaleDenominator = scale }
        switch mode {
        case .off:
            return
        case .recenter:
            let factor = settings.wanderExtentFactor
            if firstUpdate || factor <= 0 || !viewport.contains(dot, screenFraction: factor) {
                viewport.center = dot
            }
        case .navigation:
            if location.isMoving(threshold: settings.movingSpeedThreshold), let course = location.courseDegrees {
                viewport.rotationDegrees = course
            }
            viewport.center = navigationCenter(for: dot, in: viewport)
        case .compassNavigation:
            if let heading { viewport.rotationDegrees = heading }
            viewport.center = dot
        }
    }

    /// The centre that puts `dot` at the horizontal middle, `navigationPointHeightFactor` up from the bottom.
    func navigationCenter(for dot: MapPoint, in viewport: MapViewport) -> MapPoint {
        // The dot sits (h/2 - f h) pixels below the centre; go that far "up" on screen from the dot.
        let h = viewport.heightPixels
        let upPixels = h / 2 - settings.navigationPointHeightFactor * h
        return viewport.mapPoint(right: 0, up: upPixels * viewport.unitsPerPixel, from: dot)
    }
}
