import BlueDotCore
import Positioning

/// Writes location-stream lines (`docs/formats.md`, "Location stream") byte-for-byte deterministically.
///
/// Key order: t, target, x, y, z?, floor?, horizontalAccuracy, verticalAccuracy?, speed?, course?, lastKnown,
/// anchors, lat?, lon?, room?, roomProbability? (absent optionals are omitted). Decimals: t 3; x, y, z and both accuracies 3; speed 3;
/// course 1; lat and lon 7; roomProbability 3 (see `JSONText.fixed`). Separators are `", "` and `": "`, as in the datasets.
public enum LocationWriter {
    /// One line, without its newline.
    public static func line(_ fix: LocationFix) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        append(fix, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends one line, without its newline, as UTF-8: the form every output that sends bytes uses (the feed,
    /// MQTT, files), with no `String` in between.
    public static func append(_ fix: LocationFix, to out: inout [UInt8]) {
        JSONText.append("{\"t\": ", to: &out)
        JSONText.appendFixed(fix.t, decimals: 3, to: &out)
        JSONText.append(", \"target\": ", to: &out)
        JSONText.appendQuoted(fix.target, to: &out)
        JSONText.append(", \"x\": ", to: &out)
        JSONText.appendFixed(fix.x, decimals: 3, to: &out)
        JSONText.append(", \"y\": ", to: &out)
        JSONText.appendFixed(fix.y, decimals: 3, to: &out)
        if let z = fix.z {
            JSONText.append(", \"z\": ", to: &out)
            JSONText.appendFixed(z, decimals: 3, to: &out)
        }
        if let floor = fix.floor {
            JSONText.append(", \"floor\": ", to: &out)
            JSONText.appendInteger(floor, to: &out)
        }
        JSONText.append(", \"horizontalAccuracy\": ", to: &out)
        JSONText.appendFixed(fix.horizontalAccuracy, decimals: 3, to: &out)
        if let v = fix.verticalAccuracy {
            JSONText.append(", \"verticalAccuracy\": ", to: &out)
            JSONText.appendFixed(v, decimals: 3, to: &out)
        }
        if let speed = fix.speed {
            JSONText.append(", \"speed\": ", to: &out)
            JSONText.appendFixed(speed, decimals: 3, to: &out)
        }
        if let course = fix.course {
            JSONText.append(", \"course\": ", to: &out)
            JSONText.appendFixed(course, decimals: 1, to: &out)
        }
        JSONText.append(fix.lastKnown ? ", \"lastKnown\": true" : ", \"lastKnown\": false", to: &out)
        JSONText.append(", \"anchors\": ", to: &out)
        JSONText.appendInteger(fix.anchors, to: &out)
        if let lat = fix.latitude {
            JSONText.append(", \"lat\": ", to: &out)
            JSONText.appendFixed(lat, decimals: 7, to: &out)
        }
        if let lon = fix.longitude {
            JSONText.append(", \"lon\": ", to: &out)
            JSONText.appendFixed(lon, decimals: 7, to: &out)
        }
        if let room = fix.room {
            JSONText.append(", \"room\": ", to: &out)
            JSONText.appendQuoted(room, to: &out)
        }
        if let p = fix.roomProbability {
            JSONText.append(", \"roomProbability\": ", to: &out)
            JSONText.appendFixed(p, decimals: 3, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Lines for many fixes, each ending in `\n`.
    public static func text(_ fixes: some Sequence<LocationFix>) -> String {
        var out: [UInt8] = []
        for fix in fixes {
            append(fix, to: &out)
            out.append(UInt8(ascii: "\n"))
        }
        return String(decoding: out, as: UTF8.self)
    }
}
