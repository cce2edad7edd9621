// swift-tools-version: 6.1
// The display engine's tests under the thread sanitizer (`Tools/dev test` runs them), built on their own: the
// folders are links to Sources/BlueDotCore, Sources/LocationDisplay and Tests/LocationDisplayTests, so nothing else of BlueDot (nor
// its server dependencies) is rebuilt with the sanitizer.
import PackageDescription

let package = Package(
    name: "BlueDotThreadSanitizer",
    platforms: [.macOS(.v15)],
    targets: [
        .target(name: "BlueDotCore", path: "BlueDotCore", exclude: ["README.md"],
                swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(name: "LocationDisplay", dependencies: ["BlueDotCore"], path: "LocationDisplay", exclude: ["README.md"],
                swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(
            name: "LocationDisplayTests", dependencies: ["LocationDisplay", "BlueDotCore"], path: "LocationDisplayTests",
            resources: [.copy("Fixtures")], swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
