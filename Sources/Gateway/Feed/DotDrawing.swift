import Positioning

/// What a map draws for one target's fix: the display engine's drawing state (issue 4's `LocationDisplay`:
/// default symbol, course symbol when moving, acquiring (grey) when last known or stale, accuracy circle, ping).
///
/// The web page reads this from the feed and draws exactly it; it does not decide symbols itself.
public struct DotDrawing: Sendable, Hashable {
    /// Which symbol to draw.
    public enum Symbol: String, Sendable, Hashable {
        /// The plain blue dot.
        case `default`
        /// The blue dot with a course arrow (moving, course known).
        case course
        /// Grey: the fix is last known or too old.
        case acquiring
    }

    /// Which symbol.
    public var symbol: Symbol
    /// Radius of the accuracy circle, metres (the fix's 68% radius).
    public var accuracyMeters: Double
    /// Course arrow direction, degrees clockwise from +y (only with `.course`).
    public var courseDegrees: Double?
    /// Whether this update plays the ping animation.
    public var ping: Bool

    /// Creates a drawing state.
    public init(symbol: Symbol, accuracyMeters: Double, courseDegrees: Double? = nil, ping: Bool) {
        self.symbol = symbol
        self.accuracyMeters = accuracyMeters
        self.courseDegrees = courseDegrees
        self.ping = ping
    }
}

/// The rules turning fixes into drawing state, with `LocationDisplay`'s option names.
public struct DotDrawingRules: Sendable, Hashable {
    /// Draw the course symbol when moving with a known course.
    public var useCourseSymbolOnMovement = true
    /// Ping on every fresh update.
    public var showPingAnimation = true
    /// Below this speed (m/s) the target counts as standing still.
    public var movingSpeed = 0.2
    /// A fix older than this (seconds) is drawn as acquiring.
    public var staleAfterSeconds = 5.0

    /// The defaults.
    public init() {}

    /// The drawing state of `fix` at wall time `now` (seconds, the fixes' time base); `fresh` is true for an
    /// update just received (pings), false when re-evaluating an old fix.
    public func drawing(for fix: LocationFix, now: Double, fresh: Bool) -> DotDrawing {
        let stale = fix.lastKnown || now - fix.t > staleAfterSeconds
        if stale {
            return DotDrawing(symbol: .acquiring, accuracyMeters: fix.horizontalAccuracy, ping: false)
        }
        if useCourseSymbolOnMovement, let speed = fix.speed, speed >= movingSpeed, let course = fix.course {
            return DotDrawing(
                symbol: .course, accuracyMeters: fix.horizontalAccuracy, courseDegrees: course,
                ping: fresh && showPingAnimation)
        }
        return DotDrawing(symbol: .default, accuracyMeters: fix.horizontalAccuracy, ping: fresh && showPingAnimation)
    }
}
