import Glibc
import HCI

/// Why a btsnoop file could not be read or written: the file, the operation and the cause.
public enum BtsnoopFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// open(2) failed.
    case open(path: String, errno: Int32)
    /// read(2) failed.
    case read(path: String, errno: Int32)
    /// write(2) failed, or wrote nothing.
    case write(path: String, errno: Int32)
    /// The recorder was used after `close()`.
    case closed(path: String)
    /// The bytes are not a valid btsnoop file; records before the damage were delivered.
    case damaged(path: String, BtsnoopError)

    public var description: String {
        switch self {
        case let .open(path, code): "\(path): cannot open: \(Self.message(code))"
        case let .read(path, code): "\(path): read failed: \(Self.message(code))"
        case let .write(path, code): "\(path): write failed: \(Self.message(code))"
        case let .closed(path): "\(path): recorder is closed"
        case let .damaged(path, error): "\(path): \(error)"
        }
    }

    /// The C library's text for an errno value.
    static func message(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text) + " (errno \(code))"
    }
}
