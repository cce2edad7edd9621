import BlueDotCore
import JSON

extension GPSDReport {
    /// The command that asks gpsd for JSON reports of every device (`gpsd_json(5)`, "?WATCH"), with its newline.
    public static let watchCommand = #"?WATCH={"enable":true,"json":true}"# + "\n"

    /// Parses one line that gpsd sent (one JSON object). Errors name the class and the field:
    /// `TPV.lat: expected a number (column 40)`, `TPV.mode: expected 0, 1, 2 or 3, got 7`.
    public static func parse(line: some Collection<UInt8>) throws(JSONSyntaxError) -> GPSDReport {
        let bytes = Array(line)
        return try bytes.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) -> GPSDReport in
            var s = JSONScanner(buffer)
            let report = try parse(&s)
            guard s.atEnd() else { throw s.error("unexpected text after the report") }
            return report
        }
    }

    /// Reads one report object. gpsd writes `class` first; when it comes later, fields before it are named
    /// without the class.
    static func parse(_ s: inout JSONScanner) throws(JSONSyntaxError) -> GPSDReport {
        try s.beginObject("report")
        var className: String?
        var fields = Fields()
        var first = true
        while let key = try s.nextKeyBytes(first: &first) {
            let name = { className.map { "\($0).\(key)" } ?? key.description }
            switch key {
            case "class": className = try s.string("class")
            case "device": fields.device = try s.string(name())
            case "mode": fields.mode = try s.integer(name())
            case "time": fields.time = try s.time(name())
            case "lat": fields.lat = try s.optionalNumber(name())
            case "lon": fields.lon = try s.optionalNumber(name())
            case "altHAE": fields.altHAE = try s.optionalNumber(name())
            case "alt": fields.alt = try s.optionalNumber(name())
            case "eph": fields.eph = try s.optionalNumber(name())
            case "epx": fields.epx = try s.optionalNumber(name())
            case "epy": fields.epy = try s.optionalNumber(name())
            case "track": fields.track = try s.optionalNumber(name())
            case "speed": fields.speed = try s.optionalNumber(name())
            case "heading": fields.heading = try s.optionalNumber(name())
            case "release": fields.release = try s.string(name())
            case "proto_major": fields.protoMajor = try s.integer(name())
            case "proto_minor": fields.protoMinor = try s.integer(name())
            case "message": fields.message = try s.string(name())
            default: try s.skipValue()
            }
        }
        guard let className else { throw JSONSyntaxError(offset: nil, message: "class: missing") }
        return try fields.report(className: className)
    }

    /// The fields of any class, gathered before the class decides which apply.
    private struct Fields {
        var device: String?
        var mode: Int?
        var time: Double?
        var lat, lon, altHAE, alt, eph, epx, epy, track, speed, heading: Double?
        var release, message: String?
        var protoMajor, protoMinor: Int?

        func report(className: String) throws(JSONSyntaxError) -> GPSDReport {
            switch className {
            case "TPV":
                guard let mode else { throw JSONSyntaxError(offset: nil, message: "TPV.mode: missing") }
                guard let fixMode = GPSDFixMode(rawValue: mode) else {
                    throw JSONSyntaxError(offset: nil, message: "TPV.mode: expected 0, 1, 2 or 3, got \(mode)")
                }
                if fixMode.hasFix {
                    guard let lat else { throw JSONSyntaxError(offset: nil, message: "TPV.lat: missing in a \(fixMode) fix") }
                    guard let lon else { throw JSONSyntaxError(offset: nil, message: "TPV.lon: missing in a \(fixMode) fix") }
                    guard (-90...90).contains(lat) else {
                        throw JSONSyntaxError(offset: nil, message: "TPV.lat: \(lat) is not a latitude")
                    }
                    guard (-180...180).contains(lon) else {
                        throw JSONSyntaxError(offset: nil, message: "TPV.lon: \(lon) is not a longitude")
                    }
                }
                return .tpv(GPSDTPV(
                    device: device, mode: fixMode, time: time, latitude: lat, longitude: lon,
                    altitudeMeters: altHAE ?? alt, horizontalErrorMeters: eph, longitudeErrorMeters: epx,
                    latitudeErrorMeters: epy, trackDegrees: track, speedMetersPerSecond: speed))
            case "ATT":
                return .att(GPSDAttitude(device: device, time: time, headingDegrees: heading))
            case "VERSION":
                guard let release else { throw JSONSyntaxError(offset: nil, message: "VERSION.release: missing") }
                return .version(release: release, protocolMajor: protoMajor ?? 0, protocolMinor: protoMinor ?? 0)
            case "ERROR":
                return .error(message: message ?? "")
            default:
                return .other(className: className)
            }
        }
    }
}

extension JSONScanner {
    /// A finite number, or nil for `null` (gpsd writes NaN fields as absent, older releases as null).
    mutating func optionalNumber(_ context: String) throws(JSONSyntaxError) -> Double? {
        if null() { return nil }
        return try finiteNumber(context)
    }

    /// An ISO 8601 UTC time string as Unix seconds.
    mutating func time(_ context: String) throws(JSONSyntaxError) -> Double {
        skipWhitespace()
        let start = index
        let text = try string(context)
        guard let seconds = InternetTime.parse(text) else {
            throw JSONSyntaxError(offset: start, message: "\(context): expected an ISO 8601 time, got \"\(text)\"")
        }
        return seconds
    }
}
