/// How the map follows the blue dot, after ArcGIS Runtime's `LocationDisplay.AutoPanMode`.
public enum AutoPanMode: Sendable, Hashable {
    /// The map does not move with the dot.
    case off
    /// The map recentres when the dot leaves the wander extent.
    case recenter
    /// The dot is pinned low on screen and the map turns to the course while moving.
    case navigation
    /// The dot is centred and the map turns with the heading stream.
    case compassNavigation
}

/// One change of `LocationDisplay.autoPanMode`, reported on `LocationDisplay.autoPanModeChanges`.
public struct AutoPanModeChange: Sendable, Hashable {
    /// Who changed it.
    public enum Cause: Sendable, Hashable {
        /// The program set `autoPanMode`.
        case program
        /// A user pan, zoom or rotation turned auto-pan off.
        case userInteraction
    }

    /// The mode before.
    public var from: AutoPanMode
    /// The mode after.
    public var to: AutoPanMode
    /// Why it changed.
    public var cause: Cause

    /// Creates a change record.
    public init(from: AutoPanMode, to: AutoPanMode, cause: Cause) {
        self.from = from
        self.to = to
        self.cause = cause
    }
}
