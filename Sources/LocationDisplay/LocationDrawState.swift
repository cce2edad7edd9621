/// Which symbol the renderer draws for the dot.
public enum LocationSymbol: Sendable, Hashable {
    /// The plain dot.
    case `default`
    /// An arrow along the course, while moving with `useCourseSymbolOnMovement`.
    case course
    /// A dot with a heading wedge, in compass navigation mode.
    case heading
    /// The grey dot: the location is last-known or stale.
    case acquiring
}

/// Everything a renderer needs to draw the blue dot, read from `LocationDisplay.drawState`.
public struct LocationDrawState: Sendable, Hashable {
    /// The symbol to draw.
    public var symbol: LocationSymbol
    /// Where the dot is, in map units.
    public var mapLocation: MapPoint
    /// Where the dot is on screen, pixels from the top left.
    public var screenX: Double, screenY: Double
    /// Direction the symbol points, degrees clockwise from screen up (course or heading minus map rotation).
    public var symbolRotationDegrees: Double
    /// The accuracy circle's radius in map units (ground metres scaled by 1/cos φ in Web Mercator).
    public var accuracyRadiusMapUnits: Double
    /// The accuracy circle's radius in screen pixels.
    public var accuracyRadiusPixels: Double
    /// True when the dot is drawn grey (last-known location, or no update for `staleAfterSeconds`).
    public var isGrey: Bool
    /// True when a ping animation should run for the latest update (`showPingAnimation`).
    public var ping: Bool
    /// Increments with every update shown, so a renderer starts one ping per update.
    public var pingSequence: Int
    /// The floor of the location, when known.
    public var floor: Int?

    /// Creates a draw state.
    public init(symbol: LocationSymbol, mapLocation: MapPoint, screenX: Double, screenY: Double,
                symbolRotationDegrees: Double, accuracyRadiusMapUnits: Double, accuracyRadiusPixels: Double,
                isGrey: Bool, ping: Bool, pingSequence: Int, floor: Int?) {
        self.symbol = symbol
        self.mapLocation = mapLocation
        self.screenX = screenX
        self.screenY = screenY
        self.symbolRotationDegrees = symbolRotationDegrees
        self.accuracyRadiusMapUnits = accuracyRadiusMapUnits
        self.accuracyRadiusPixels = accuracyRadiusPixels
        self.isGrey = isGrey
        self.ping = ping
        self.pingSequence = pingSequence
        self.floor = floor
    }
}
