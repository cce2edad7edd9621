// swift-tools-version: 6.1
// Tests under the thread sanitizer (`Tools/dev test` runs them), built on their own: the folders are links to the
// project's modules and tests, so that the calibration tool, the benchmarks, the `bluedot` executable and the
// tests that only drive processes are not rebuilt with the sanitizer. What runs here is every test of the code
// with threads of its own or shared state between tasks:
// - the display engine's data sources (LocationDisplayTests);
// - the bus: observers called in place from several threads (LocationBusTests);
// - the pipeline: inputs, the scanner against the Bumble controller, the engine's sources (BeaconLocationTests);
// - GNSS: gpsd's source reading its socket, the hand-over observing two sources (GNSSTests);
// - the MQTT module: the libmosquitto client's callbacks from its own thread under load against a real mosquitto
//   (MQTTClientTests), the receiver and solver (SiteTests) and Home Assistant's publisher (HomeAssistantTests);
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
        .target(name: "JSON", path: "JSON", exclude: ["README.md"], swiftSettings: strict),
        .target(name: "HCI", dependencies: ["BlueDotCore", "JSON"], path: "HCI", exclude: ["README.md"],
                swiftSettings: strict),
        .systemLibrary(name: "CBlueZ", path: "CBlueZ", pkgConfig: "bluez"),
        .target(name: "SystemIO", dependencies: ["HCI", "CBlueZ", "BlueDotCore", "JSON", log], path: "SystemIO",
                exclude: ["README.md"], swiftSettings: strict),
        .target(name: "Scanner", dependencies: ["HCI", "BlueDotCore", "JSON", log], path: "Scanner",
                exclude: ["README.md"], swiftSettings: strict),
        .target(name: "Positioning", dependencies: ["BlueDotCore", "JSON"], path: "Positioning", exclude: ["README.md"],
                swiftSettings: strict),
        .systemLibrary(name: "CYAML", path: "CYAML", pkgConfig: "yaml-0.1"),
        .systemLibrary(name: "CExpat", path: "CExpat", pkgConfig: "expat"),
        .systemLibrary(name: "CZip", path: "CZip", pkgConfig: "libzip"),
        .target(name: "Formats", dependencies: [
                    "Positioning", "BlueDotCore", "JSON", "SystemIO", "CYAML", "CExpat", "CZip",
                ], path: "Formats", exclude: ["README.md"], swiftSettings: strict),
        .systemLibrary(name: "CLibCrypto", path: "CLibCrypto", pkgConfig: "libcrypto"),
        .target(name: "Devices", dependencies: ["HCI", "Formats", "BlueDotCore", "JSON", "SystemIO", "CLibCrypto", log],
                path: "Devices", exclude: ["README.md"], swiftSettings: strict),
        .target(name: "LocationDisplay", dependencies: ["BlueDotCore"], path: "LocationDisplay", exclude: ["README.md"],
                swiftSettings: strict),
        .target(name: "LocationBus", dependencies: ["BlueDotCore", "LocationDisplay", "Positioning"], path: "LocationBus",
                exclude: ["README.md"], swiftSettings: strict),
        .target(name: "BeaconLocation", dependencies: [
                    "HCI", "SystemIO", "Scanner", "Positioning", "Formats", "Devices", "LocationDisplay", "LocationBus",
                    "BlueDotCore", "JSON", log,
                ], path: "BeaconLocation", exclude: ["README.md"], swiftSettings: strict),
        .target(name: "GNSS", dependencies: [
                    "LocationBus", "LocationDisplay", "Formats", "SystemIO", "Positioning", "BlueDotCore", "JSON", log,
                ], path: "GNSS", exclude: ["README.md"], swiftSettings: strict),
        .systemLibrary(name: "CMosquitto", path: "CMosquitto", pkgConfig: "libmosquitto"),
        .target(name: "Site", dependencies: [
                    "CMosquitto", "BeaconLocation", "LocationBus", "Devices", "Formats", "Positioning", "BlueDotCore", "JSON",
                    log,
                ], path: "Site", exclude: ["README.md"], swiftSettings: strict),
        .target(name: "HomeAssistant", dependencies: [
                    "Site", "LocationBus", "Devices", "Formats", "Positioning", "BlueDotCore", "JSON", log,
                ], path: "HomeAssistant", exclude: ["README.md"], swiftSettings: strict),
        .systemLibrary(name: "CSQLite", path: "CSQLite", pkgConfig: "sqlite3"),
        .target(name: "History", dependencies: ["CSQLite", "LocationBus", "BeaconLocation", "BlueDotCore", "JSON", log],
                path: "History",
                exclude: ["README.md"], swiftSettings: strict),
        .target(name: "CalibrationRuns", dependencies: ["Positioning", "Formats", "BeaconLocation", "BlueDotCore"],
                path: "CalibrationRuns", swiftSettings: strict),
        .target(name: "CalibrationKit", dependencies: ["Positioning", "Formats", "CalibrationRuns", "BlueDotCore", "SystemIO"],
                path: "CalibrationKit", swiftSettings: strict),
        .target(
            name: "Gateway",
            dependencies: [
                "HCI", "SystemIO", "Scanner", "Positioning", "Formats", "Devices", "LocationDisplay", "LocationBus",
                "BeaconLocation", "GNSS", "BlueDotCore", "JSON", "Site", "HomeAssistant", "History", "CalibrationKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
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
        .testTarget(name: "LocationBusTests", dependencies: ["LocationBus", "LocationDisplay", "Positioning", "BlueDotCore"],
                    path: "LocationBusTests", swiftSettings: strict),
        .testTarget(name: "BeaconLocationTests", dependencies: [
                        "BeaconLocation", "LocationDisplay", "LocationBus", "GNSS", "HCI", "SystemIO", "Scanner",
                        "Positioning", "Formats", "Devices", "BlueDotCore", "JSON", log,
                    ], path: "BeaconLocationTests", swiftSettings: strict),
        .testTarget(name: "GNSSTests", dependencies: [
                        "GNSS", "LocationBus", "LocationDisplay", "Formats", "SystemIO", "Positioning", "BlueDotCore", "JSON",
                    ], path: "GNSSTests", swiftSettings: strict),
        .testTarget(name: "SiteTests", dependencies: ["Site", "LocationBus", "Positioning", "Formats", "LocationDisplay", "BlueDotCore", "JSON", log],
                    path: "SiteTests", swiftSettings: strict),
        .testTarget(name: "HomeAssistantTests", dependencies: [
                        "HomeAssistant", "Site", "LocationBus", "Positioning", "Formats", "LocationDisplay", "BlueDotCore",
                        "JSON",
                    ], path: "HomeAssistantTests", swiftSettings: strict),
        .testTarget(name: "HistoryTests", dependencies: [
                        "History", "LocationBus", "BeaconLocation", "LocationDisplay", "Formats", "BlueDotCore",
                    ], path: "HistoryTests", swiftSettings: strict),
        .testTarget(name: "GatewayServiceTests", dependencies: [
                        "Gateway", "LocationDisplay", "LocationBus", "Positioning", "Formats", "BeaconLocation", "GNSS",
                        "BlueDotCore", "JSON", "History", "Devices",
                        .product(name: "Hummingbird", package: "hummingbird"),
                        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"), log,
                    ], path: "GatewayServiceTests", swiftSettings: strict),
    ]
)
