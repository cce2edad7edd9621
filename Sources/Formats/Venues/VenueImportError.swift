/// Why an IMDF archive or a GeoJSON file could not be made a venue: the file, the feature, the field and the
/// problem. Its description reads `unit.geojson: feature 0a1b2c3d-…: geometry.coordinates[0][3]: expected [lon,
/// lat]`; what concerns a file as a whole leaves out the feature (`IMDF.zip: no level.geojson in the archive`), and
/// syntax errors give the line and column as the field (`level.geojson: line 4, column 17: expected ',' or '}'`).
public struct VenueImportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file's name (inside a zip archive, `archive.zip/level.geojson`).
    public var file: String
    /// The feature: `feature <id>`, or `features[<i>]` when it has no id; nil for problems of the file as a whole.
    public var feature: String?
    /// The field inside the feature (`geometry.coordinates[0][3]`, `properties.level_id`), or inside the file when
    /// there is no feature; empty when there is nothing more precise to name.
    public var path: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(file: String, feature: String? = nil, path: String = "", message: String) {
        self.file = file
        self.feature = feature
        self.path = path
        self.message = message
    }

    /// An error of the JSON walk (`VenueError`, its path relative to the feature) placed in a feature.
    init(_ error: VenueError, feature: String?) {
        self.init(file: error.file, feature: feature, path: error.path == "(top level)" ? "" : error.path,
                  message: error.message)
    }

    /// `file: feature: path: message`, leaving out what is not known.
    public var description: String {
        ([file] + [feature, path.isEmpty ? nil : path].compactMap { $0 } + [message]).joined(separator: ": ")
    }
}
