import BlueDotCore
import JSON
import Positioning

/// Writes location-stream lines (`docs/formats.md`, "Location stream") byte-for-byte deterministically.
///
/// Key order: t, target, x, y, z?, floor?, horizontalAccuracy, verticalAccuracy?, speed?, course?, lastKnown,
/// anchors, lat?, lon?, room?, roomProbability?, heading?, source?, presence?, silentFor?, site? (absent optionals are
/// omitted). Decimals: t 3; x, y, z and both accuracies 3; speed 3; course, heading and silentFor 1; lat and lon 7;
/// roomProbability 3 (see `JSONText.fixed`). Separators are `", "` and `": "`, as in the datasets.
public enum LocationWriter {
    /// One line, without its newline.
    public static func line(_ fix: Location) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        append(fix, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends one line, without its newline, as UTF-8: the form every output that sends bytes uses (the feed,
    /// MQTT, files), with no `String` in between.
    public static func append(_ fix: Location, to out: inout [UInt8]) {
        JSONText.append(to: &out, estimatedBytes: 320) { write(fix, to: &$0) }
    }

    /// Writes one line, without its newline.
    public static func write(_ fix: Location, to w: inout JSONWriter) {
        w.literal("{\"t\": ")
        w.fixed(fix.timestamp, decimals: 3)
        w.literal(", \"target\": ")
        w.quoted(fix.targetID)
        w.literal(", \"x\": ")
        w.fixed(fix.x, decimals: 3)
        w.literal(", \"y\": ")
        w.fixed(fix.y, decimals: 3)
        if let z = fix.z {
            w.literal(", \"z\": ")
            w.fixed(z, decimals: 3)
        }
        if let floor = fix.floor {
            w.literal(", \"floor\": ")
            w.integer(floor)
        }
        w.literal(", \"horizontalAccuracy\": ")
        w.fixed(fix.horizontalAccuracyMeters, decimals: 3)
        if let v = fix.verticalAccuracyMeters {
            w.literal(", \"verticalAccuracy\": ")
            w.fixed(v, decimals: 3)
        }
        if let speed = fix.speedMetersPerSecond {
            w.literal(", \"speed\": ")
            w.fixed(speed, decimals: 3)
        }
        if let course = fix.courseDegrees {
            w.literal(", \"course\": ")
            w.fixed(course, decimals: 1)
        }
        w.literal(fix.lastKnown ? ", \"lastKnown\": true" : ", \"lastKnown\": false")
        w.literal(", \"anchors\": ")
        w.integer(fix.anchorCount)
        if let lat = fix.latitude {
            w.literal(", \"lat\": ")
            w.fixed(lat, decimals: 7)
        }
        if let lon = fix.longitude {
            w.literal(", \"lon\": ")
            w.fixed(lon, decimals: 7)
        }
        if let room = fix.room {
            w.literal(", \"room\": ")
            w.quoted(room)
        }
        if let p = fix.roomProbability {
            w.literal(", \"roomProbability\": ")
            w.fixed(p, decimals: 3)
        }
        if let heading = fix.headingDegrees {
            w.literal(", \"heading\": ")
            w.fixed(heading, decimals: 1)
        }
        if let source = fix.source {
            w.literal(", \"source\": ")
            w.quoted(source.rawValue)
        }
        if let presence = fix.presence {
            w.literal(", \"presence\": ")
            w.quoted(presence.rawValue)
        }
        if let silent = fix.silentForSeconds {
            w.literal(", \"silentFor\": ")
            w.fixed(silent, decimals: 1)
        }
        if let site = fix.site {
            w.literal(", \"site\": ")
            w.quoted(site)
        }
        w.byte(UInt8(ascii: "}"))
    }

    /// Lines for many fixes, each ending in `\n`.
    public static func text(_ fixes: some Sequence<Location>) -> String {
        var out: [UInt8] = []
        for fix in fixes {
            append(fix, to: &out)
            out.append(UInt8(ascii: "\n"))
        }
        return String(decoding: out, as: UTF8.self)
    }
}
