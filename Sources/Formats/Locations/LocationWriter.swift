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
        var s = "{\"t\": " + JSONText.fixed(fix.t, decimals: 3)
        s += ", \"target\": " + JSONText.quoted(fix.target)
        s += ", \"x\": " + JSONText.fixed(fix.x, decimals: 3)
        s += ", \"y\": " + JSONText.fixed(fix.y, decimals: 3)
        if let z = fix.z { s += ", \"z\": " + JSONText.fixed(z, decimals: 3) }
        if let floor = fix.floor { s += ", \"floor\": \(floor)" }
        s += ", \"horizontalAccuracy\": " + JSONText.fixed(fix.horizontalAccuracy, decimals: 3)
        if let v = fix.verticalAccuracy { s += ", \"verticalAccuracy\": " + JSONText.fixed(v, decimals: 3) }
        if let speed = fix.speed { s += ", \"speed\": " + JSONText.fixed(speed, decimals: 3) }
        if let course = fix.course { s += ", \"course\": " + JSONText.fixed(course, decimals: 1) }
        s += ", \"lastKnown\": " + (fix.lastKnown ? "true" : "false")
        s += ", \"anchors\": \(fix.anchors)"
        if let lat = fix.latitude { s += ", \"lat\": " + JSONText.fixed(lat, decimals: 7) }
        if let lon = fix.longitude { s += ", \"lon\": " + JSONText.fixed(lon, decimals: 7) }
        if let room = fix.room { s += ", \"room\": " + JSONText.quoted(room) }
        if let p = fix.roomProbability { s += ", \"roomProbability\": " + JSONText.fixed(p, decimals: 3) }
        return s + "}"
    }

    /// Lines for many fixes, each ending in `\n`.
    public static func text(_ fixes: some Sequence<LocationFix>) -> String {
        var out = ""
        for fix in fixes {
            out += line(fix)
            out += "\n"
        }
        return out
    }
}
