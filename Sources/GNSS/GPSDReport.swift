/// One JSON object that gpsd sends a client (gpsd's `gpsd_json(5)`, "Core Protocol Responses"), with the fields
/// BlueDot uses. Anything else gpsd says (SKY, DEVICES, WATCH, PPS, AIS, ...) is `other`, named by its class.
public enum GPSDReport: Sendable, Hashable {
    /// A time-position-velocity report (`"class":"TPV"`).
    case tpv(GPSDTPV)
    /// An attitude report (`"class":"ATT"`): a compass, a dual-antenna heading (NMEA HDT) or an IMU.
    case att(GPSDAttitude)
    /// The greeting (`"class":"VERSION"`): gpsd's release and protocol version.
    case version(release: String, protocolMajor: Int, protocolMinor: Int)
    /// A complaint about the last command (`"class":"ERROR"`).
    case error(message: String)
    /// Any other class, ignored by BlueDot.
    case other(className: String)
}

/// The fix mode of a TPV report: gpsd's `mode` field.
public enum GPSDFixMode: Int, Sendable, Hashable, CustomStringConvertible {
    /// gpsd has not seen a mode yet (0).
    case unknown = 0
    /// The receiver reports no fix (1).
    case noFix = 1
    /// A 2D fix: latitude and longitude, no altitude (2).
    case twoD = 2
    /// A 3D fix: latitude, longitude and altitude (3).
    case threeD = 3

    /// Whether the report carries a position.
    public var hasFix: Bool { self == .twoD || self == .threeD }

    /// `unknown`, `no fix`, `2D` or `3D`.
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .noFix: "no fix"
        case .twoD: "2D"
        case .threeD: "3D"
        }
    }
}

/// A TPV report's fields (`gpsd_json(5)`, "TPV"); absent fields are nil.
public struct GPSDTPV: Sendable, Hashable {
    /// The device that made the report.
    public var device: String?
    /// No fix, 2D or 3D.
    public var mode: GPSDFixMode
    /// The fix's UTC time, Unix seconds, from `time` (ISO 8601).
    public var time: Double?
    /// Latitude, degrees (WGS84).
    public var latitude: Double?
    /// Longitude, degrees (WGS84).
    public var longitude: Double?
    /// Altitude above the WGS84 ellipsoid (`altHAE`; older gpsd `alt`), metres.
    public var altitudeMeters: Double?
    /// gpsd's estimated horizontal position error (`eph`), metres. gpsd derives it from the receiver's own error
    /// estimate or from HDOP times a user-equivalent range error, which gpsd's sources document as a 95%
    /// confidence figure (`libgpsd_core.c`, `H_UERE_*`): BlueDot takes it as a 95% radius.
    public var horizontalErrorMeters: Double?
    /// Longitude and latitude error estimates (`epx`, `epy`), metres, 95% as `eph`; used when `eph` is absent.
    public var longitudeErrorMeters: Double?
    /// See `longitudeErrorMeters`.
    public var latitudeErrorMeters: Double?
    /// Course over ground, degrees from true north (`track`).
    public var trackDegrees: Double?
    /// Speed over ground, m/s (`speed`).
    public var speedMetersPerSecond: Double?

    /// Creates a report.
    public init(device: String? = nil, mode: GPSDFixMode, time: Double? = nil, latitude: Double? = nil,
                longitude: Double? = nil, altitudeMeters: Double? = nil, horizontalErrorMeters: Double? = nil,
                longitudeErrorMeters: Double? = nil, latitudeErrorMeters: Double? = nil, trackDegrees: Double? = nil,
                speedMetersPerSecond: Double? = nil) {
        self.device = device
        self.mode = mode
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitudeMeters = altitudeMeters
        self.horizontalErrorMeters = horizontalErrorMeters
        self.longitudeErrorMeters = longitudeErrorMeters
        self.latitudeErrorMeters = latitudeErrorMeters
        self.trackDegrees = trackDegrees
        self.speedMetersPerSecond = speedMetersPerSecond
    }
}

/// An ATT report's heading (`gpsd_json(5)`, "ATT").
public struct GPSDAttitude: Sendable, Hashable {
    /// The device that made the report.
    public var device: String?
    /// The report's time, Unix seconds, when given.
    public var time: Double?
    /// Heading, degrees from true north (`heading`), when given.
    public var headingDegrees: Double?

    /// Creates a report.
    public init(device: String? = nil, time: Double? = nil, headingDegrees: Double? = nil) {
        self.device = device
        self.time = time
        self.headingDegrees = headingDegrees
    }
}
