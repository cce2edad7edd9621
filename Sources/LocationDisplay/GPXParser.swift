import BlueDotCore
import FoundationEssentials

/// Reads GPX 1.1 (BlueDot's own `XMLReader`): tracks, segments, routes and their points' `lat`, `lon`, `ele` and
/// `time`. Prefixes such as `gpx:` are dropped; `extensions` and unknown elements are skipped.
public enum GPXParser {
    /// Parses GPX bytes; `file` names them in errors.
    public static func parse(_ data: Data, file: String) throws(GPXError) -> GPXDocument {
        var builder = GPXBuilder()
        do {
            try XMLReader.read(Array(data), into: &builder)
        } catch {
            throw GPXError(file: file, line: error.line, message: error.message)
        }
        guard builder.sawRoot else { throw GPXError(file: file, line: nil, message: "no <gpx> root element") }
        return builder.document
    }

    /// Reads and parses a file.
    public static func parse(path: String) throws(GPXError) -> GPXDocument {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw GPXError(file: path, line: nil, message: "cannot read the file")
        }
        return try parse(data, file: path)
    }

    /// Parses an ISO 8601 / RFC 3339 time such as `2024-05-01T10:00:00Z` or `2024-05-01T12:00:00.250+02:00`
    /// (`InternetTime.parse`).
    public static func parseTime(_ text: String) -> Double? { InternetTime.parse(text) }
}
