/// Why a GPX file could not be used: names the file, the line and column when known, and what is wrong.
public struct GPXError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file (path or name) being read.
    public var file: String
    /// The 1-based line of the problem, when known.
    public var line: Int?
    /// The 1-based column (in characters) of the problem, when known.
    public var column: Int?
    /// What is wrong, such as `trkpt lat "abc" is not a number`.
    public var message: String

    /// Creates an error.
    public init(file: String, line: Int?, column: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: message`, the form compilers use, leaving out what is unknown.
    public var description: String {
        let place = [line, line == nil ? nil : column].compactMap { $0.map(String.init) }
        return ([file] + place).joined(separator: ":") + ": \(message)"
    }
}
