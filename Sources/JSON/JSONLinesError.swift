
/// A JSONL input that cannot be used: the file, the line (1-based; nil for file-level problems) and the problem.
///
/// Its description reads `straight_01.observations.jsonl:17: rssi: expected a number`.
public struct JSONLinesError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file's name (last path component) or the name the caller gave the stream.
    public var file: String
    /// The 1-based line number, when the problem is on a line.
    public var line: Int?
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(file: String, line: Int?, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `file:line: message`.
    public var description: String {
        if let line { return "\(file):\(line): \(message)" }
        return "\(file): \(message)"
    }
}
