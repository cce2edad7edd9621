/// Why a registry file (or an import) was refused: the file, where in it, and what is wrong.
///
/// Reads `devices.json: devices[2].irk: expected 32 hex digits, got "ec02"`; syntax errors name the line and
/// column instead of a path (`devices.json: line 4, column 17: expected ',' or '}'`).
public struct DeviceRegistryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file's name as given.
    public var file: String
    /// The field (`devices[2].irk`), a `line L, column C` position, or empty for the file as a whole.
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
    public var description: String { path.isEmpty ? "\(file): \(message)" : "\(file): \(path): \(message)" }
}
