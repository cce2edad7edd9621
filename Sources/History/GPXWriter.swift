import BlueDotCore
import FoundationEssentials
import JSON

/// Writes locations as GPX 1.1 (https://www.topografix.com/GPX/1/1/): one track per target, in order of first
/// appearance, one segment of its fixes in time order, each a `trkpt` with `lat`, `lon` and `time` (UTC, millisecond
/// ISO 8601). GPX is WGS84 only: locations without latitude and longitude (a venue without an origin) are left out
/// and counted. BlueDot's `GPXLocationDataSource` and gpsbabel read what it writes.
public enum GPXWriter {
    /// The document and how many locations had no coordinates.
    public static func document(_ locations: [Location], creator: String = "BlueDot") -> (text: String, skipped: Int) {
        var order: [String] = []
        var byTarget: [String: [Location]] = [:]
        var skipped = 0
        for location in locations {
            guard let lat = location.latitude, let lon = location.longitude, lat.isFinite, lon.isFinite else {
                skipped += 1
                continue
            }
            if byTarget[location.targetID] == nil { order.append(location.targetID) }
            byTarget[location.targetID, default: []].append(location)
        }
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="\(escaped(creator))" xmlns="http://www.topografix.com/GPX/1/1">

            """
        for target in order {
            text += "  <trk>\n    <name>\(escaped(target))</name>\n    <trkseg>\n"
            for l in (byTarget[target] ?? []).sorted(by: { $0.timestamp < $1.timestamp }) {
                text += "      <trkpt lat=\"\(fixed(l.latitude ?? 0))\" lon=\"\(fixed(l.longitude ?? 0))\">"
                text += "<time>\(InternetTime.format(l.timestamp, fractionDigits: 3))</time></trkpt>\n"
            }
            text += "    </trkseg>\n  </trk>\n"
        }
        return (text + "</gpx>\n", skipped)
    }

    /// Degrees with 7 decimals (about a centimetre).
    static func fixed(_ x: Double) -> String { JSONText.fixed(x, decimals: 7) }

    /// Text safe in XML content and attributes.
    static func escaped(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(c)
            }
        }
        return out
    }
}
