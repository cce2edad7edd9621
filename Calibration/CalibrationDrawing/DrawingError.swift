/// A map that could not be drawn.
public enum DrawingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The output's extension is not png, svg or pdf.
    case unsupportedFormat(path: String)
    /// Cairo reported an error creating or writing the file.
    case cairo(path: String, reason: String)

    /// What went wrong, naming the file.
    public var description: String {
        switch self {
        case let .unsupportedFormat(path): "\(path): the output must end in .png, .svg or .pdf"
        case let .cairo(path, reason): "\(path): cairo: \(reason)"
        }
    }
}
