import Foundation

/// Paths and bytes of the test fixtures (copied real data; see Fixtures/ATTRIBUTION.md).
enum Fixtures {
    /// The fixture folder inside the test bundle.
    static let directory: URL = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!

    /// Absolute path of a fixture.
    static func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// The bytes of a fixture.
    static func bytes(_ name: String) -> [UInt8] {
        [UInt8](FileManager.default.contents(atPath: path(name)) ?? Data())
    }
}
