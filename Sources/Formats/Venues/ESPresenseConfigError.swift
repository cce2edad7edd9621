/// Why an ESPresense-companion configuration could not be imported: the file, the line, the field path and the
/// problem. Its description reads `config.yaml:57: nodes[3].point: expected [x, y, z]`, or for the YAML's syntax
/// `config.yaml:4:1: did not find expected ',' or ']', ...` with the column.
public struct ESPresenseConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file's name as given to the importer.
    public var file: String
    /// 1-based line of the offending YAML node, when known.
    public var line: Int?
    /// 1-based column (in characters) of a YAML syntax error; nil for the import's own errors.
    public var column: Int?
    /// The field path (`nodes[3].point`); empty for syntax errors and problems of the file as a whole.
    public var path: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(file: String, line: Int?, column: Int? = nil, path: String, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.path = path
        self.message = message
    }

    /// A YAML syntax error, at its line and column.
    init(yaml error: YAMLSyntaxError, file: String) {
        self.init(file: file, line: error.line, column: error.column, path: "", message: error.message)
    }

    /// `file:line: path: message` (`file:line:column: message` for syntax), leaving out what is unknown.
    public var description: String {
        let place = [file] + [line, line == nil ? nil : column].compactMap { $0.map(String.init) }
        return path.isEmpty ? "\(place.joined(separator: ":")): \(message)"
            : "\(place.joined(separator: ":")): \(path): \(message)"
    }
}
