// swift-tools-version: 6.1
// Tests under the thread sanitizer (`Tools/dev test` runs them), built on their own: the folders are links to the
// project's modules and tests, so that the calibration tool, the benchmarks, the `bluedot` executable and the
// tests that only drive processes are not rebuilt with the sanitizer. What runs here is every test of the code
// with threads of its own or shared state between tasks:
// - the display engine's data sources (LocationDisplayTests);
// - the pipeline: inputs, the scanner against the Bumble controller, the engine's sources (BeaconLocationTests);
// - the MQTT module: the libmosquitto client's callbacks from its own thread under load against a real mosquitto
//   (MQTTClientTests), the receiver, solver and Home Assistant publishers (SiteTests);
// - the history's writer thread (HistoryTests);
// - the gateway's services in process: the spine, the location hub and its feed, the router and the history
//   routes (GatewayServiceTests, a selection of Tests/GatewayTests).
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]
let log = Target.Dependency.product(name: "Logging", package: "swift-log")

let package = Package(
    name: "BlueDotThreadSanitizer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        .target(name: "CBuildInfo", path: "CBuildInfo"),
        .target(name: "BlueDotCore", dependencies: ["CBuildInfo"], path: "BlueDotCore", exclude: ["README.md"],
                swiftSettings: strict),
        .target(name: "HCI", dependencies: ["BlueDotCore"], path: "HCI", exclude: ["README.md"], swiftSettings: strict),
        .systemLibrary(name: "CBlueZ", path: "CBlueZ", pkgConfig: "bluez"),
        .target(name: "HCILinux", dependencies: ["HCI", "CBlueZ", "BlueDotCore", log], path: "HCILinux",
                exclude: ["README.md"], swiftSettings: strict),
        .target(name: "Scanner", dependencies: ["HCI", "BlueDotCore", log], path: "Scanner", exclude: ["README.md"],
                swiftSettings: strict),
        .target(name: "Positioning", dependencies: ["BlueDotCore"], path: "Positioning", exclude: ["README.md"],
                swiftSettings: strict),
        .systemLibrary(name: "CYAML", path: "CYAML", pkgConfig: "yaml-0.1"),
        .systemLibrary(name: "CExpat", path: "CExpat", pkgConfig: "expat"),
        .systemLibrary(name: "CZip", path: "CZip", pkgConfig: "libzip"),
        .target(name: "Formats", dependencies: [
                    "Positioning", "BlueDotCore", "CYAML", "CExpat", "CZip",
                ], path: "Formats", exclude: ["README.md"], swiftSettings: strict),
        .systemLibrary(name: "CLibCrypto", path: "CLibCrypto", pkgConfig: "libcrypto"),
        .target(name: "Devices", dependencies: ["HCI", "Formats", "BlueDotCore", "CLibCrypto", log], path: "Devices",
                exclude: ["README.md"], swiftSettings: strict),
        .target(name: "LocationDisplay", dependencies: ["BlueDotCore"], path: "LocationDisplay", exclude: ["README.md"],
                swiftSettings: strict),
        .target(name: "BeaconLocation", dependencies: [
                    "HCI", "HCILinux", "Scanner", "Positioning", "Formats", "Devices", "LocationDisplay", "BlueDotCore", log,
                ], path: "BeaconLocation", exclude: ["README.md"], swiftSettings: strict),
        .systemLibrary(name: "CMosquitto", path: "CMosquitto", pkgConfig: "libmosquitto"),
        .target(name: "Site", dependencies: [
                    "CMosquitto", "BeaconLocation", "Devices", "Formats", "Positioning", "BlueDotCore", log,
                ], path: "Site", exclude: ["README.md", "HomeAssistant/README.md"], swiftSettings: strict),
        .systemLibrary(name: "CSQLite", path: "CSQLite", pkgConfig: "sqlite3"),
        .target(name: "History", dependencies: ["CSQLite", "BeaconLocation", "BlueDotCore", log], path: "History",
                exclude: ["README.md"], swiftSettings: strict),
        .target(
            name: "Gateway",
            dependencies: [
                "HCI", "HCILinux", "Scanner", "Positioning", "Formats", "Devices", "LocationDisplay", "BeaconLocation",
                "BlueDotCore", "Site", "History",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                log,
            ],
            path: "Gateway", exclude: ["README.md", "Page", "Demo", "API"],
            swiftSettings: strict
        ),
        .testTarget(name: "LocationDisplayTests", dependencies: ["LocationDisplay", "BlueDotCore"],
                    path: "LocationDisplayTests", swiftSettings: strict),
        .testTarget(name: "MQTTClientTests", dependencies: ["Site", "BlueDotCore", log], path: "MQTTClientTests",
                    swiftSettings: strict),
        .testTarget(name: "BeaconLocationTests", dependencies: [
                        "BeaconLocation", "LocationDisplay", "HCI", "HCILinux", "Scanner", "Positioning", "Formats",
                        "Devices", "BlueDotCore", log,
                    ], path: "BeaconLocationTests", swiftSettings: strict),
        .testTarget(name: "SiteTests", dependencies: ["Site", "Positioning", "Formats", "LocationDisplay", "BlueDotCore"],
                    path: "SiteTests", swiftSettings: strict),
        .testTarget(name: "HistoryTests", dependencies: ["History", "BeaconLocation", "LocationDisplay", "Formats", "BlueDotCore"],
                    path: "HistoryTests", swiftSettings: strict),
        .testTarget(name: "GatewayServiceTests", dependencies: [
                        "Gateway", "LocationDisplay", "Positioning", "Formats", "BeaconLocation", "BlueDotCore", "History",
                        .product(name: "Hummingbird", package: "hummingbird"),
                        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"), log,
                    ], path: "GatewayServiceTests", swiftSettings: strict),
    ]
)
