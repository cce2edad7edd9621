import FoundationEssentials
import SystemIO

/// Reads GPX 1.1 (expat, through `XMLReader`): tracks, segments, routes and their points' `lat`, `lon`, `ele` and
/// `time`. Namespaces and their prefixes (`gpx:`) are resolved; `extensions` and unknown elements are skipped.
public enum GPXParser {
    /// Parses GPX bytes; `file` names them in errors.
    public static func parse(_ bytes: [UInt8], file: String) throws(GPXError) -> GPXDocument {
        let builder = GPXBuilder()
        do {
            try XMLReader.read(bytes, into: builder)
        } catch {
            throw GPXError(file: file, line: error.position.line, column: error.position.column, message: error.message)
        }
        guard builder.sawRoot else { throw GPXError(file: file, line: nil, message: "no <gpx> root element") }
        return builder.document
    }

    /// Reads and parses a file.
    public static func parse(path: String) throws(GPXError) -> GPXDocument {
        let data: [UInt8]
        do { data = try WholeFile.read(path) } catch {
            throw GPXError(file: path, line: nil, message: "cannot read the file: \(error.reason)")
        }
        return try parse(data, file: path)
    }
}
