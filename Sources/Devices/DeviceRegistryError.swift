/// Why a registry file, or a source of keys being imported, was refused: the file, the line when known, the field
/// and what is wrong.
///
/// Reads `devices.json: devices[2].irk: expected 32 hex digits, got "ec02"`; with a line, as compilers write
/// places, `info:11: [IdentityResolvingKey] Key: expected 32 hex digits` or, for JSON syntax,
/// `devices.json:4:17: expected ',' or '}'`.
public struct DeviceRegistryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file's name as given.
    public var file: String
    /// 1-based line of the problem, when known.
    public var line: Int?
    /// 1-based column (in bytes), for syntax errors.
    public var column: Int?
    /// The field (`devices[2].irk`); empty for the file as a whole or its syntax.
    public var field: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(file: String, line: Int? = nil, column: Int? = nil, field: String, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.field = field
        self.message = message
    }

    /// `file[:line[:column]]: [field: ]message`.
    public var description: String {
        let place = [file] + [line, line == nil ? nil : column].compactMap { $0.map(String.init) }
        return place.joined(separator: ":") + ": " + (field.isEmpty ? "" : field + ": ") + message
    }
}
