import BlueDotCore


/// Shows where a `LocationDataSource` says we are on a `MapViewport`, after ArcGIS Runtime's `LocationDisplay`.
///
/// Feed it with `start()` (which starts the source and follows its streams) or, with no data source (a display
/// fed from the bus, as the gateway's web feed does), call `receive(_:)` and `receive(heading:)` directly. It moves the viewport according to `autoPanMode` and exposes what to draw in
/// `drawState`. A user pan, zoom or rotation turns auto-pan off and is reported on `autoPanModeChanges`.
/// `initialZoomScale` (1:N) is applied on the first update after auto-pan is switched on, and that first update
/// also recentres. Time (for staleness) comes from the injected clock.
public final class LocationDisplay: Sendable {
    struct State {
        var viewport: MapViewport
        var settings: LocationDisplaySettings
        var autoPanMode: AutoPanMode = .off
        var firstUpdatePending = false
        var location: Location?
        var headingDegrees: Double?
        var receivedAt: Double?
        var pingSequence = 0
        var followers: [Task<Void, Never>] = []
    }

    let state: LockedValue<State>
    /// The source this display shows; nil for a display fed through `receive(_:)` alone.
    public let dataSource: LocationDataSource?
    /// Ties local coordinates to WGS84; when set (or when locations carry latitude and longitude) the map is in
    /// Web Mercator metres, otherwise in the venue's local metres.
    public let geographicOrigin: GeographicOrigin?
    private let clock: any BlueDotClock
    private let autoPanBroadcast = Broadcast<AutoPanModeChange>()
    private let viewportBroadcast = Broadcast<MapViewport>(bufferLimit: 16)

    /// Creates a display of `dataSource` (or of what `receive(_:)` is given) on `viewport`, reading time from
    /// `clock`.
    public init(dataSource: LocationDataSource? = nil, viewport: MapViewport, settings: LocationDisplaySettings = .init(),
                geographicOrigin: GeographicOrigin? = nil, clock: any BlueDotClock = SystemClock()) {
        self.dataSource = dataSource
        self.geographicOrigin = geographicOrigin
        self.clock = clock
        state = LockedValue(State(viewport: viewport, settings: settings))
    }

    deinit {
        autoPanBroadcast.finish()
        viewportBroadcast.finish()
    }

    /// The viewport as it is now.
    public var viewport: MapViewport { state.withLock { $0.viewport } }

    /// The tunable behaviour (wander extent, navigation point, symbols, staleness).
    public var settings: LocationDisplaySettings {
        get { state.withLock { $0.settings } }
        set { state.withLock { $0.settings = newValue } }
    }

    /// The last location received, if any.
    public var location: Location? { state.withLock { $0.location } }

    /// The last heading received, degrees, if any.
    public var headingDegrees: Double? { state.withLock { $0.headingDegrees } }

    /// A new stream of auto-pan mode changes from now on.
    public var autoPanModeChanges: AsyncStream<AutoPanModeChange> { autoPanBroadcast.subscribe() }

    /// A new stream of viewports, one per change made by auto-pan or user interaction (newest 16 kept).
    public var viewportChanges: AsyncStream<MapViewport> { viewportBroadcast.subscribe() }

    /// How the map follows the dot. Setting it reports a `.program` change; switching it on arms
    /// `initialZoomScale` and a recentre for the next update.
    public var autoPanMode: AutoPanMode {
        get { state.withLock { $0.autoPanMode } }
        set { setAutoPanMode(newValue, cause: .program) }
    }

    private func setAutoPanMode(_ mode: AutoPanMode, cause: AutoPanModeChange.Cause) {
        state.withLock { s in
            guard s.autoPanMode != mode else { return }
            let change = AutoPanModeChange(from: s.autoPanMode, to: mode, cause: cause)
            s.autoPanMode = mode
            s.firstUpdatePending = mode != .off
            autoPanBroadcast.yield(change)
        }
    }

    /// Starts the data source and follows its locations and headings until `stop()`; without one, nothing.
    public func start() async throws {
        guard let dataSource else { return }
        try await dataSource.start()
        let locations = dataSource.locations, headings = dataSource.headings
        let followLocations = Task { [weak self] in
            for await location in locations { self?.receive(location) }
        }
        let followHeadings = Task { [weak self] in
            for await heading in headings { self?.receive(heading: heading) }
        }
        state.withLock { $0.followers += [followLocations, followHeadings] }
    }

    /// Stops following and stops the data source.
    public func stop() async {
        let followers = state.withLock { s in
            defer { s.followers.removeAll() }
            return s.followers
        }
        followers.forEach { $0.cancel() }
        await dataSource?.stop()
    }

    /// Shows a new location: remembers it, starts a ping and moves the viewport as `autoPanMode` says.
    public func receive(_ location: Location) {
        let now = clock.now()
        let point = mapPoint(of: location)
        state.withLock { s in
            s.location = location
            s.receivedAt = now
            s.pingSequence += 1
            let before = s.viewport
            AutoPanner(settings: s.settings).apply(
                mode: s.autoPanMode, to: &s.viewport, dot: point, location: location, heading: s.headingDegrees,
                firstUpdate: s.firstUpdatePending)
            if s.autoPanMode != .off { s.firstUpdatePending = false }
            if s.viewport != before { viewportBroadcast.yield(s.viewport) }
        }
    }

    /// Takes a new heading (degrees clockwise from +y or north); in compass navigation the map turns with it.
    public func receive(heading: Double) {
        state.withLock { s in
            s.headingDegrees = heading
            guard s.autoPanMode == .compassNavigation, s.viewport.rotationDegrees != heading else { return }
            s.viewport.rotationDegrees = heading
            viewportBroadcast.yield(s.viewport)
        }
    }

    /// A user drag by (dx, dy) pixels: moves the map and turns auto-pan off.
    public func userPan(byPixelsX dx: Double, y dy: Double) {
        userInteraction { $0.pan(byPixelsX: dx, y: dy) }
    }

    /// A user pinch by `factor` around a screen point: zooms and turns auto-pan off.
    public func userZoom(by factor: Double, aroundScreenX x: Double, y: Double) {
        userInteraction { $0.zoom(by: factor, aroundScreenX: x, y: y) }
    }

    /// A user rotation to `degrees`: turns the map and turns auto-pan off.
    public func userRotate(toDegrees degrees: Double) {
        userInteraction { $0.rotationDegrees = degrees }
    }

    /// Resizes the screen (not a user interaction: auto-pan stays on).
    public func resize(widthPixels: Double, heightPixels: Double) {
        state.withLock { s in
            s.viewport.widthPixels = widthPixels
            s.viewport.heightPixels = heightPixels
            viewportBroadcast.yield(s.viewport)
        }
    }

    private func userInteraction(_ change: (inout MapViewport) -> Void) {
        state.withLock { s in
            change(&s.viewport)
            viewportBroadcast.yield(s.viewport)
        }
        setAutoPanMode(.off, cause: .userInteraction)
    }

    /// Where a location goes on the map: Web Mercator of its latitude and longitude (given, or derived through
    /// `geographicOrigin`), else its local x and y.
    public func mapPoint(of location: Location) -> MapPoint {
        if let coordinate = geographic(location) {
            return WebMercator.project(latitude: coordinate.latitude, longitude: coordinate.longitude)
        }
        return MapPoint(x: location.x, y: location.y)
    }

    /// The last location on the map, if any.
    public var mapLocation: MapPoint? { location.map(mapPoint(of:)) }

    func geographic(_ location: Location) -> (latitude: Double, longitude: Double)? {
        if let latitude = location.latitude, let longitude = location.longitude { return (latitude, longitude) }
        return geographicOrigin?.geographic(x: location.x, y: location.y)
    }

    /// What to draw now, or `nil` before the first location. Staleness is judged against the clock at the call.
    public var drawState: LocationDrawState? {
        let now = clock.now()
        let s = state.withLock { s in
            (location: s.location, receivedAt: s.receivedAt, viewport: s.viewport, settings: s.settings,
             mode: s.autoPanMode, heading: s.headingDegrees, pingSequence: s.pingSequence)
        }
        guard let location = s.location, let receivedAt = s.receivedAt else { return nil }
        return LocationDrawStateBuilder(
            location: location, mapLocation: mapPoint(of: location), latitude: geographic(location)?.latitude,
            viewport: s.viewport, settings: s.settings, mode: s.mode, heading: s.heading,
            stale: now - receivedAt > s.settings.staleAfterSeconds, pingSequence: s.pingSequence
        ).build()
    }
}
