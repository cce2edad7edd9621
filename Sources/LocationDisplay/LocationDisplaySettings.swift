/// The tunable behaviour of a `LocationDisplay`, named as in ArcGIS Runtime.
public struct LocationDisplaySettings: Sendable, Hashable {
    /// Recenter mode's wander extent as a fraction of the screen: 0 recentres on every update, 1 at the edge.
    public var wanderExtentFactor: Double
    /// Navigation mode pins the dot this fraction of the screen height up from the bottom.
    public var navigationPointHeightFactor: Double
    /// The 1:N scale applied on the first update after auto-pan is switched on; `nil` keeps the scale.
    public var initialZoomScale: Double?
    /// Draw the course arrow while moving with a course.
    public var useCourseSymbolOnMovement: Bool
    /// Ping on every update.
    public var showPingAnimation: Bool
    /// Seconds without an update after which the dot turns grey.
    public var staleAfterSeconds: Double
    /// Speed in m/s above which a location with a course counts as moving (course symbol, navigation rotation).
    public var movingSpeedThreshold: Double

    /// Creates settings; the defaults are ArcGIS Runtime's where it has one.
    public init(wanderExtentFactor: Double = 0.5, navigationPointHeightFactor: Double = 0.125,
                initialZoomScale: Double? = nil, useCourseSymbolOnMovement: Bool = false,
                showPingAnimation: Bool = false, staleAfterSeconds: Double = 10, movingSpeedThreshold: Double = 0.2) {
        self.wanderExtentFactor = wanderExtentFactor
        self.navigationPointHeightFactor = navigationPointHeightFactor
        self.initialZoomScale = initialZoomScale
        self.useCourseSymbolOnMovement = useCourseSymbolOnMovement
        self.showPingAnimation = showPingAnimation
        self.staleAfterSeconds = staleAfterSeconds
        self.movingSpeedThreshold = movingSpeedThreshold
    }
}
