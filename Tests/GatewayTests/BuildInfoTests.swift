@testable import BlueDotCore
import Testing

/// `bluedot --version`: the package's version and commit when Tools/package/build made the binary (checked on the
/// installed package by Tools/package/check), and a plain statement otherwise.
@Suite struct BuildInfoTests {
    @Test func aPackagedBuildNamesItsVersionAndCommit() {
        #expect(BuildInfo.versionLine(packageVersion: "0.1.0", commit: "62886c9e1f0a") == "0.1.0 (commit 62886c9e1f0a)")
        #expect(BuildInfo.versionLine(packageVersion: "0.1.0", commit: nil) == "0.1.0")
    }

    @Test func aDevelopersBuildSaysSo() {
        #expect(BuildInfo.versionLine(packageVersion: nil, commit: nil) == "development build (not packaged)")
        #expect(BuildInfo.versionLine(packageVersion: nil, commit: "62886c9e1f0a-dirty")
            == "development build (commit 62886c9e1f0a-dirty)")
    }

    @Test func thisTestBuildWasNotPackaged() {
        // Tools/dev test builds without BLUEDOT_VERSION; a test build that claimed a package version would lie.
        #expect(BuildInfo.packageVersion == nil)
        #expect(BuildInfo.versionLine.hasPrefix("development build"))
    }
}
