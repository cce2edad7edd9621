import Glibc

/// A path as the operating system resolves it: absolute, with every symbolic link, `.` and `..` followed
/// (`realpath(3)`). Here, with the other calls to the system, rather than where it is used: in a module that also sees
/// a C library's headers (the gateway sees libyaml's and expat's through `Formats`), a release build's fortified
/// `realpath` has two definitions and does not compile.
public enum ResolvedPath {
    /// `path` resolved; nil when it does not exist or cannot be resolved.
    public static func of(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
