import CBuildInfo

/// What the running binary was built as: the Debian package's version and the commit, which `Tools/dev package`
/// hands to the build (`Sources/CBuildInfo`). A developer's `swift build` knows neither.
public enum BuildInfo {
    /// The package version, or nil in a developer's build.
    public static let packageVersion: String? = nonEmpty(bluedot_build_version())
    /// The commit (abbreviated, `-dirty` when the tree had changes), or nil when the build was not told.
    public static let commit: String? = nonEmpty(bluedot_build_commit())

    /// The `--version` line: `0.1.0 (commit 62886c9e1f0a)`, or `development build (not packaged)`.
    public static var versionLine: String {
        versionLine(packageVersion: packageVersion, commit: commit)
    }

    static func versionLine(packageVersion: String?, commit: String?) -> String {
        let version = packageVersion ?? "development build (not packaged)"
        guard let commit else { return version }
        return packageVersion == nil ? "development build (commit \(commit))" : "\(version) (commit \(commit))"
    }

    private static func nonEmpty(_ text: UnsafePointer<CChar>) -> String? {
        let value = String(cString: text)
        return value.isEmpty ? nil : value
    }
}
