#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A failed system call: which call, the `errno` it set, and what that means.
///
/// Every syscall in this module goes through `System`, which turns a failure into one of these. Transports map
/// the cases they understand (no Bluetooth in the kernel, a missing capability, rfkill) to `SystemIOError`;
/// anything else travels inside `SystemIOError.system` unchanged, so the message always names the call.
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `errno` value.
    public var code: Int32
    /// The call that failed, with the argument that identifies it, such as `socket(AF_BLUETOOTH)`.
    public var call: String

    /// Creates an error for `call` with the given `errno` value.
    public init(code: Int32, call: String) {
        self.code = code
        self.call = call
    }

    /// The symbolic name of the error, such as `EAFNOSUPPORT`, or `errno N` for one not in the table.
    public var symbolicName: String { Self.names[code] ?? "errno \(code)" }

    /// The C library's explanation of the error (`strerror`).
    public var explanation: String { String(cString: strerror(code)) }

    /// `call failed: NAME (explanation)`.
    public var description: String { "\(call) failed: \(symbolicName) (\(explanation))" }

    /// Symbolic names of the errors these transports can meet (Linux values).
    static let names: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", EINTR: "EINTR", EIO: "EIO", ENXIO: "ENXIO", EBADF: "EBADF",
        EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EACCES: "EACCES", EFAULT: "EFAULT", EBUSY: "EBUSY",
        EEXIST: "EEXIST", ENODEV: "ENODEV", ENOTDIR: "ENOTDIR", EISDIR: "EISDIR", EINVAL: "EINVAL",
        ENFILE: "ENFILE", EMFILE: "EMFILE", ENOTTY: "ENOTTY", ENOSPC: "ENOSPC", EPIPE: "EPIPE",
        ERANGE: "ERANGE", ENOSYS: "ENOSYS", ENOTSOCK: "ENOTSOCK", EPROTOTYPE: "EPROTOTYPE",
        ENOPROTOOPT: "ENOPROTOOPT", EPROTONOSUPPORT: "EPROTONOSUPPORT", ESOCKTNOSUPPORT: "ESOCKTNOSUPPORT",
        EOPNOTSUPP: "EOPNOTSUPP", EAFNOSUPPORT: "EAFNOSUPPORT", EADDRINUSE: "EADDRINUSE",
        EADDRNOTAVAIL: "EADDRNOTAVAIL", ENETDOWN: "ENETDOWN", ENETUNREACH: "ENETUNREACH",
        ECONNABORTED: "ECONNABORTED", ECONNRESET: "ECONNRESET", ENOBUFS: "ENOBUFS", EISCONN: "EISCONN",
        ENOTCONN: "ENOTCONN", ETIMEDOUT: "ETIMEDOUT", ECONNREFUSED: "ECONNREFUSED", EHOSTDOWN: "EHOSTDOWN",
        EHOSTUNREACH: "EHOSTUNREACH", EALREADY: "EALREADY", EINPROGRESS: "EINPROGRESS", ERFKILL: "ERFKILL",
    ]
}
