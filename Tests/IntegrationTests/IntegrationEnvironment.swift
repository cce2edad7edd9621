import Foundation
import Testing

/// Where the package, the built `bluedot` binary, the Python with Bumble and the external tools are, and whether
/// their absence skips or fails the integration tests.
///
/// - `BLUEDOT_PYTHON`: the Python that runs Tools/virtual-world/world.py (default `<package root>/.venv/bin/python`).
/// - `BLUEDOT_REQUIRE_INTEGRATION=1`: a missing Python (or Bumble) fails the tests instead of skipping them.
/// - `BLUEDOT_REQUIRE_TOOLS=1`: a missing `tshark` or `btmon` fails the recording test instead of skipping that part.
enum IntegrationEnvironment {
    static let environment = ProcessInfo.processInfo.environment

    /// The package root: three levels above this file (Tests/IntegrationTests/<file>).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The virtual world script.
    static let worldScript = packageRoot.appendingPathComponent("Tools/virtual-world/world.py").path

    /// The world file the tests use.
    static let worldConfig = packageRoot.appendingPathComponent("Tools/virtual-world/beacons.json").path

    /// The Python to run the world with.
    static let python: String = environment["BLUEDOT_PYTHON"]
        ?? packageRoot.appendingPathComponent(".venv/bin/python").path

    /// Whether a missing Python must fail the tests.
    static let integrationRequired = environment["BLUEDOT_REQUIRE_INTEGRATION"] == "1"

    /// Whether missing tshark/btmon must fail the recording test.
    static let toolsRequired = environment["BLUEDOT_REQUIRE_TOOLS"] == "1"

    /// Why the virtual world cannot run here, or nil when it can (the Python exists and imports bumble).
    static let worldUnavailableReason: String? = {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return "no Python at \(python) (set BLUEDOT_PYTHON or run Tools/dev/setup)"
        }
        let probe = try? ChildProcess.run(python, ["-c", "import bumble"], timeout: .seconds(30))
        guard probe?.status == 0 else { return "\(python) cannot import bumble" }
        return nil
    }()

    /// True when the world tests should run: the world is available, or its absence must fail them.
    static let runWorldTests = worldUnavailableReason == nil || integrationRequired

    /// Why the world tests were skipped, as the test report shows it.
    static var skipComment: Comment {
        Comment(rawValue: "virtual world unavailable: \(worldUnavailableReason ?? "?")")
    }

    /// The `bluedot` binary: beside the test bundle, else in `swift build --show-bin-path`.
    static let bluedot: String = {
        let candidates = [
            Bundle.main.executableURL?.deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL,
        ].compactMap { $0?.appendingPathComponent("bluedot").path }
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) { return found }
        let shown = try? ChildProcess.run(
            "/usr/bin/env", ["swift", "build", "--show-bin-path"], directory: packageRoot.path, timeout: .seconds(120))
        let binPath = shown?.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) ?? ".build/debug"
        return binPath + "/bluedot"
    }()

    /// The full path of `tool` on PATH, nil when absent.
    static func which(_ tool: String) -> String? {
        for directory in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(directory)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// A fresh scratch directory for one test.
    static func scratchDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bluedot-it-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
