import BlueDotCore
import Formats
import Glibc
import Positioning

/// Turns gpsd's reports into locations: the pure half of `GPSDLocationSource`, tested without a socket.
///
/// A 2D or 3D TPV becomes a current location at the fix's own latitude and longitude, placed in the venue's
/// frame through `origin` (or, without one, about the first fix, +y north). gpsd's `eph` is taken as a 95% radius
/// (gpsd's documented guess, and what its own HDOP × UERE estimate stands for) and scaled to BlueDot's 68% radius
/// of a circular Gaussian: r₆₈ = eph · √(−2 ln 0.32) / √(−2 ln 0.05) = 0.6167 · eph. Without `eph`, `epx`/`epy`
/// (95% per axis) give the radius of that ellipse; without either, `unknownAccuracyMeters`. A TPV without a fix
/// (mode 0 or 1) turns the last fix into a last-known location (grey), if there was one. ATT headings are kept
/// and attached to later locations while they are at most `headingMaxAgeSeconds` old.
public struct GPSDFixes: Sendable {
    /// The 68% radius per metre of a 95% radius, for a circular Gaussian.
    public static let radius68Per95 = (-2 * log(0.32)).squareRoot() / (-2 * log(0.05)).squareRoot()
    /// The 68% radius given to a fix without any error estimate, metres: a consumer receiver's open-sky figure.
    public static let unknownAccuracyMeters = 10.0
    /// How long a heading stays attached to locations, seconds.
    public var headingMaxAgeSeconds = 5.0
    /// The venue's origin; nil until the first fix when the venue has none.
    public private(set) var origin: GeographicOrigin?
    /// The last current location made.
    public private(set) var lastFix: Location?
    private var heading: (degrees: Double, at: Double)?

    /// Starts with the venue's origin, or none.
    public init(origin: GeographicOrigin?) {
        self.origin = origin
    }

    /// The 68% radius for a TPV's error estimates, metres.
    public static func horizontalAccuracy68(_ tpv: GPSDTPV) -> Double {
        if let eph = tpv.horizontalErrorMeters, eph > 0 { return eph * radius68Per95 }
        if let epx = tpv.longitudeErrorMeters, let epy = tpv.latitudeErrorMeters, epx > 0 || epy > 0 {
            // 95% half-widths per axis → σ per axis (1.96 σ), then the 68% radius of that ellipse.
            let sx = epx / 1.959_964, sy = epy / 1.959_964
            return AccuracyRadius.radius68(sxx: sx * sx, sxy: 0, syy: sy * sy)
        }
        return unknownAccuracyMeters
    }

    /// The location a TPV report stands for at clock time `now`: current for a fix, last known without one (nil
    /// before the first fix).
    public mutating func location(for tpv: GPSDTPV, now: Double) -> Location? {
        guard tpv.mode.hasFix, let latitude = tpv.latitude, let longitude = tpv.longitude else {
            guard var last = lastFix else { return nil }
            last.timestamp = now
            last.lastKnown = true
            last.speedMetersPerSecond = nil
            last.headingDegrees = currentHeading(now: now)
            last.attributes["gpsdMode"] = tpv.mode.description
            last.attributes["gpsdTime"] = tpv.time.map { InternetTime.format($0, fractionDigits: 3) }
            return last
        }
        let origin = origin ?? GeographicOrigin(latitude: latitude, longitude: longitude)
        self.origin = origin
        let local = origin.local(latitude: latitude, longitude: longitude)
        var attributes = ["gpsdMode": tpv.mode.description]
        if let time = tpv.time { attributes["gpsdTime"] = InternetTime.format(time, fractionDigits: 3) }
        let fix = Location(
            timestamp: now, x: local.x, y: local.y, horizontalAccuracyMeters: Self.horizontalAccuracy68(tpv),
            speedMetersPerSecond: tpv.speedMetersPerSecond, courseDegrees: tpv.trackDegrees, anchorCount: 0,
            latitude: latitude, longitude: longitude, headingDegrees: currentHeading(now: now), source: .gnss,
            attributes: attributes)
        lastFix = fix
        return fix
    }

    /// Keeps an ATT report's heading; returns it (normalised to [0, 360)) when it has one.
    public mutating func heading(for attitude: GPSDAttitude, now: Double) -> Double? {
        guard let degrees = attitude.headingDegrees, degrees.isFinite else { return nil }
        let normalized = Degrees.normalized(degrees)
        heading = (normalized, now)
        return normalized
    }

    /// The last heading while it is fresh at clock time `now`.
    public func heading(at now: Double) -> Double? { currentHeading(now: now) }

    private func currentHeading(now: Double) -> Double? {
        guard let heading, now - heading.at <= headingMaxAgeSeconds else { return nil }
        return heading.degrees
    }
}
