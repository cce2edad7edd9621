import LocationDisplay

/// One target's `LocationDisplay.drawState` as the feed carries it to the web page, which draws exactly this
/// and decides nothing itself: the symbol (default, course arrow when moving, heading, acquiring/grey when last
/// known or stale), the accuracy circle, the arrow's direction on the plan, the ping, and the map rotation the
/// display engine's navigation auto-pan sets for this target.
public struct DotDrawing: Sendable, Hashable {
    /// Which symbol: `LocationSymbol` by name.
    public var symbol: String
    /// Radius of the accuracy circle, metres on the plan.
    public var accuracyMeters: Double
    /// Direction of the course or heading arrow, degrees clockwise from the plan's +y (only with an arrow).
    public var rotationDegrees: Double?
    /// Whether this update starts a ping animation.
    public var ping: Bool
    /// Counts the updates the display has shown (a new value is a new ping).
    public var pingSequence: Int
    /// The viewport rotation of this target's display in navigation auto-pan (`MapViewport.rotationDegrees`):
    /// the plan direction, degrees clockwise from +y, that points up on screen. It follows the course while the
    /// target moves with one and keeps its last value otherwise; 0 (plan +y up) before any course.
    public var navigationRotationDegrees: Double
    /// The direction the device points (a compass, gpsd's ATT), degrees clockwise from the plan's +y: the heading
    /// wedge; nil without a heading.
    public var headingDegrees: Double?

    /// Creates a drawing.
    public init(symbol: String, accuracyMeters: Double, rotationDegrees: Double? = nil, ping: Bool, pingSequence: Int,
                navigationRotationDegrees: Double = 0) {
        self.symbol = symbol
        self.accuracyMeters = accuracyMeters
        self.rotationDegrees = rotationDegrees
        self.ping = ping
        self.pingSequence = pingSequence
        self.navigationRotationDegrees = navigationRotationDegrees
    }

    /// The drawing of a display's state; `fresh` is true right after an update (a re-read never pings).
    /// The display's map is the plan in local metres, unrotated, so its radius and rotation are plan values;
    /// `navigationRotationDegrees` is the viewport rotation of the target's navigation display.
    public init(_ state: LocationDrawState, fresh: Bool, navigationRotationDegrees: Double = 0,
                headingDegrees: Double? = nil) {
        switch state.symbol {
        case .default: symbol = "default"
        case .course: symbol = "course"
        case .heading: symbol = "heading"
        case .acquiring: symbol = "acquiring"
        }
        accuracyMeters = state.accuracyRadiusMapUnits
        rotationDegrees = state.symbol == .course || state.symbol == .heading ? state.symbolRotationDegrees : nil
        ping = fresh && state.ping
        pingSequence = state.pingSequence
        self.navigationRotationDegrees = navigationRotationDegrees
        self.headingDegrees = headingDegrees
    }

    /// This drawing without its ping (for comparing re-reads and replaying the current state).
    public var quiet: DotDrawing {
        var copy = self
        copy.ping = false
        return copy
    }
}
