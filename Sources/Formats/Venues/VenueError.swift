import Positioning

/// Why a venue file was rejected: the file, the JSON path inside it and the problem.
///
/// Its description reads `site.venue.json: anchors[3].x: expected a number`; syntax errors name the line and
/// column instead of a path (`site.venue.json: line 4, column 17: expected ',' or '}'`).
public struct VenueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file's name as given to the loader (its last path component when loaded from a path).
    public var file: String
    /// The JSON path of the offending value (`anchors[3].x`), or a `line L, column C` position for syntax errors;
    /// empty for problems with the file as a whole.
    public var path: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(file: String, path: String, message: String) {
        self.file = file
        self.path = path
        self.message = message
    }

    /// `file: path: message`.
    public var description: String {
        path.isEmpty ? "\(file): \(message)" : "\(file): \(path): \(message)"
    }
}
