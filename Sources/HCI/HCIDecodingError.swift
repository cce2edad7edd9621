/// Why bytes could not be decoded as the declared type. Every case names the field and where it stands.
public enum HCIDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Fewer bytes remained than the field needs.
    case truncated(field: String, offset: Int, needed: Int, available: Int)
    /// The field holds a value the specification does not allow (or that contradicts another field).
    case invalid(field: String, offset: Int, reason: String)
    /// Bytes were left over after the last declared field, where the format allows none.
    case trailingBytes(type: String, count: Int)

    public var description: String {
        switch self {
        case let .truncated(field, offset, needed, available):
            return "\(field) at byte \(offset): needs \(needed) byte(s), \(available) left"
        case let .invalid(field, offset, reason):
            return "\(field) at byte \(offset): \(reason)"
        case let .trailingBytes(type, count):
            return "\(type): \(count) unexpected trailing byte(s)"
        }
    }
}
