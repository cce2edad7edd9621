/// Why a GPX file could not be used: names the file, the line when known, and what is wrong.
public struct GPXError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file (path or name) being read.
    public var file: String
    /// The 1-based line of the problem, when known.
    public var line: Int?
    /// What is wrong, such as `trkpt lat "abc" is not a number`.
    public var message: String

    /// Creates an error.
    public init(file: String, line: Int?, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `file:line: message`, the form compilers use.
    public var description: String {
        if let line { return "\(file):\(line): \(message)" }
        return "\(file): \(message)"
    }
}
