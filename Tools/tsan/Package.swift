// swift-tools-version: 6.1
// Tests under the thread sanitizer (`Tools/dev test` runs them), built on their own: the folders are links to
// Sources/BlueDotCore, Sources/LocationDisplay, Sources/CMosquitto, Sources/Site/MQTT (the MQTT client alone, as
// module Site) and their tests, so nothing else of BlueDot (nor its server dependencies) is rebuilt with the
// sanitizer: the display engine's data sources and the MQTT client's callbacks from libmosquitto's thread.
import PackageDescription

let package = Package(
    name: "BlueDotThreadSanitizer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(name: "BlueDotCore", path: "BlueDotCore", exclude: ["README.md"],
                swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(name: "LocationDisplay", dependencies: ["BlueDotCore"], path: "LocationDisplay", exclude: ["README.md"],
                swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(
            name: "LocationDisplayTests", dependencies: ["LocationDisplay", "BlueDotCore"], path: "LocationDisplayTests",
            resources: [.copy("Fixtures")], swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .systemLibrary(name: "CMosquitto", path: "CMosquitto", pkgConfig: "libmosquitto"),
        .target(
            name: "Site", dependencies: ["CMosquitto", "BlueDotCore", .product(name: "Logging", package: "swift-log")],
            path: "SiteMQTT", swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "MQTTClientTests",
            dependencies: ["Site", "BlueDotCore", .product(name: "Logging", package: "swift-log")],
            path: "MQTTClientTests", swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
