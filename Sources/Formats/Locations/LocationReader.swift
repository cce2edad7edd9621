import BlueDotCore
import JSON
import Positioning
import SystemIO

/// Reads location JSONL (what `bluedot replay` writes) back into fixes, e.g. for `bluedot evaluate`.
///
/// Required per line: `t`, `x`, `y`, `horizontalAccuracy` (finite numbers). Optional: `target` (default `self`),
/// `z`, `floor` (integer), `verticalAccuracy`, `speed`, `course`, `lastKnown` (default false), `anchors` (default 0),
/// `lat`, `lon`, `room` (string), `roomProbability`, `heading`, `source` (`beacons` or `gnss`), `presence` (`home` or
/// `not_home`), `silentFor` (seconds, 0 or more), `site` (string). Unknown keys are ignored; blank lines skipped; any other bad line
/// throws naming file and line.
public enum LocationReader {
    /// Reads the location file at `path`.
    public static func read(path: String) throws(JSONLinesError) -> [Location] {
        let source = try FileChunkSource(path: path)
        return try read(source: source, name: source.name)
    }

    /// Reads location lines from any chunked source; `name` stands for the file in errors.
    public static func read(source: any ByteChunkSource, name: String) throws(JSONLinesError) -> [Location] {
        try JSONLines.readAll(source: source, name: name) { (s) throws(JSONSyntaxError) in try parse(&s) }
    }

    /// Parses one location object that stands alone (a site's MQTT message: formats.md, "A site over MQTT");
    /// throws with the field and the offset of what is wrong.
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> Location {
        let parsed: Result<Location, JSONSyntaxError> = bytes.withUnsafeBufferPointer { buffer in
            var s = JSONScanner(buffer)
            do throws(JSONSyntaxError) {
                let fix = try parse(&s)
                guard s.atEnd() else { throw s.error("unexpected text after the object") }
                return .success(fix)
            } catch {
                return .failure(error)
            }
        }
        return try parsed.get()
    }

    /// Parses one location object.
    static func parse(_ s: inout JSONScanner) throws(JSONSyntaxError) -> Location {
        try s.beginObject()
        var fix = Location(timestamp: .nan, targetID: Observation.selfTarget, x: .nan, y: .nan,
            horizontalAccuracyMeters: .nan, anchorCount: 0)
        var first = true
        while let key = try s.nextKeyBytes(first: &first) {
            switch key {
            case "t": fix.timestamp = try s.finiteNumber("t")
            case "target": fix.targetID = try s.string("target")
            case "x": fix.x = try s.finiteNumber("x")
            case "y": fix.y = try s.finiteNumber("y")
            case "z": fix.z = s.null() ? nil : try s.finiteNumber("z")
            case "floor": fix.floor = s.null() ? nil : try s.integer("floor")
            case "horizontalAccuracy": fix.horizontalAccuracyMeters = try s.finiteNumber("horizontalAccuracy")
            case "verticalAccuracy": fix.verticalAccuracyMeters = s.null() ? nil : try s.finiteNumber("verticalAccuracy")
            case "speed": fix.speedMetersPerSecond = s.null() ? nil : try s.finiteNumber("speed")
            case "course": fix.courseDegrees = s.null() ? nil : try s.finiteNumber("course")
            case "lastKnown": fix.lastKnown = try s.bool("lastKnown")
            case "anchors": fix.anchorCount = try s.integer("anchors")
            case "lat": fix.latitude = s.null() ? nil : try s.finiteNumber("lat")
            case "lon": fix.longitude = s.null() ? nil : try s.finiteNumber("lon")
            case "room": fix.room = s.null() ? nil : try s.string("room")
            case "roomProbability": fix.roomProbability = s.null() ? nil : try s.finiteNumber("roomProbability")
            case "heading": fix.headingDegrees = s.null() ? nil : try s.finiteNumber("heading")
            case "source":
                if s.null() { fix.source = nil; break }
                s.skipWhitespace()
                let start = s.index
                let text = try s.string("source")
                guard let source = PositionSource(rawValue: text) else {
                    throw JSONSyntaxError(offset: start, message:
                        "source: expected one of \(PositionSource.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(text)\"")
                }
                fix.source = source
            case "presence":
                if s.null() { fix.presence = nil; break }
                s.skipWhitespace()
                let start = s.index
                let text = try s.string("presence")
                guard let presence = Presence(rawValue: text) else {
                    throw JSONSyntaxError(offset: start,
                                          message: "presence: expected home or not_home, got \"\(text)\"")
                }
                fix.presence = presence
            case "silentFor":
                fix.silentForSeconds = s.null() ? nil : try s.finiteNumber("silentFor")
                if let silent = fix.silentForSeconds, silent < 0 {
                    throw JSONSyntaxError(offset: nil, message: "silentFor: expected 0 or more, got \(silent)")
                }
            case "site": fix.site = s.null() ? nil : try s.string("site")
            default: try s.skipValue()
            }
        }
        for (name, value) in [("t", fix.timestamp), ("x", fix.x), ("y", fix.y), ("horizontalAccuracy", fix.horizontalAccuracyMeters)]
            where value.isNaN {
            throw JSONSyntaxError(offset: nil, message: "\(name): missing")
        }
        return fix
    }
}
