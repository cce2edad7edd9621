/// Why an ESPresense-companion configuration could not be imported: the file, the line, the field path and the
/// problem. Its description reads `config.yaml:57: nodes[3].point: expected [x, y, z]`.
public struct ESPresenseConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file's name as given to the importer.
    public var file: String
    /// 1-based line of the offending YAML node, when known.
    public var line: Int?
    /// The field path (`nodes[3].point`); empty for syntax errors and problems of the file as a whole.
    public var path: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(file: String, line: Int?, path: String, message: String) {
        self.file = file
        self.line = line
        self.path = path
        self.message = message
    }

    /// A YAML syntax error, at its line (the column goes in the message).
    init(yaml error: YAMLSyntaxError, file: String) {
        self.init(file: file, line: error.line, path: "", message: "\(error.message) (column \(error.column))")
    }

    /// `file:line: path: message`, leaving out what is unknown.
    public var description: String {
        let place = line.map { "\(file):\($0)" } ?? file
        return path.isEmpty ? "\(place): \(message)" : "\(place): \(path): \(message)"
    }
}
