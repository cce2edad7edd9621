import Foundation

/// The package's root folder, from this file's path: where the fixtures and gpsd's logs are.
let packageRoot = URL(filePath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
