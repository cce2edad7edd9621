// swift-tools-version: 6.1
// The fuzz targets built for libFuzzer (`Tools/fuzz/run` builds and runs them; see README.md here).
//
// Built on their own, with `-sanitize=fuzzer,address` (bluedot-fuzz's `main` runs libFuzzer's driver): the folders
// under Linked/ are links to the project's modules, so the HTTP server (Hummingbird, NIO) is not rebuilt with
// the fuzzer's instrumentation. `Gateway` here is only the gateway's configuration and request parsing
// (Sources/Gateway/Configuration and Sources/Gateway/Web/Requests), the parts that read untrusted text.
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]
let log = Target.Dependency.product(name: "Logging", package: "swift-log")

let package = Package(
    name: "BlueDotFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(name: "CBuildInfo", path: "Linked/CBuildInfo"),
        .target(name: "BlueDotCore", dependencies: ["CBuildInfo"], path: "Linked/BlueDotCore", exclude: ["README.md"],
                swiftSettings: strict),
        .target(name: "JSON", path: "Linked/JSON", exclude: ["README.md"], swiftSettings: strict),
        .target(name: "HCI", dependencies: ["BlueDotCore", "JSON"], path: "Linked/HCI", exclude: ["README.md"],
                swiftSettings: strict),
        .systemLibrary(name: "CBlueZ", path: "Linked/CBlueZ", pkgConfig: "bluez"),
        .target(name: "SystemIO", dependencies: ["HCI", "CBlueZ", "BlueDotCore", "JSON", log],
                path: "Linked/SystemIO", exclude: ["README.md"], swiftSettings: strict),
        .target(name: "Scanner", dependencies: ["HCI", "BlueDotCore", "JSON", log],
                path: "Linked/Scanner", exclude: ["README.md"], swiftSettings: strict),
        .target(name: "Positioning", dependencies: ["BlueDotCore", "JSON"], path: "Linked/Positioning",
                exclude: ["README.md"], swiftSettings: strict),
        .systemLibrary(name: "CYAML", path: "Linked/CYAML", pkgConfig: "yaml-0.1"),
        .systemLibrary(name: "CExpat", path: "Linked/CExpat", pkgConfig: "expat"),
        .systemLibrary(name: "CZip", path: "Linked/CZip", pkgConfig: "libzip"),
        .target(name: "Formats", dependencies: [
                    "Positioning", "BlueDotCore", "JSON", "SystemIO", "CYAML", "CExpat", "CZip",
                ], path: "Linked/Formats", exclude: ["README.md"], swiftSettings: strict),
        .systemLibrary(name: "CLibCrypto", path: "Linked/CLibCrypto", pkgConfig: "libcrypto"),
        .target(name: "Devices", dependencies: [
                    "HCI", "Formats", "BlueDotCore", "JSON", "SystemIO", "CLibCrypto", log,
                ], path: "Linked/Devices", exclude: ["README.md"], swiftSettings: strict),
        .target(name: "LocationDisplay", dependencies: ["BlueDotCore"], path: "Linked/LocationDisplay",
                exclude: ["README.md"], swiftSettings: strict),
        .target(name: "LocationBus", dependencies: ["BlueDotCore", "LocationDisplay", "Positioning"],
                path: "Linked/LocationBus", exclude: ["README.md"], swiftSettings: strict),
        .target(name: "BeaconLocation", dependencies: [
                    "HCI", "SystemIO", "Scanner", "Positioning", "Formats", "Devices", "LocationDisplay", "LocationBus",
                    "BlueDotCore", "JSON", log,
                ], path: "Linked/BeaconLocation", exclude: ["README.md"], swiftSettings: strict),
        .target(name: "GNSS", dependencies: [
                    "LocationBus", "LocationDisplay", "Formats", "SystemIO", "Positioning", "BlueDotCore", "JSON", log,
                ], path: "Linked/GNSS", exclude: ["README.md"], swiftSettings: strict),
        .systemLibrary(name: "CMosquitto", path: "Linked/CMosquitto", pkgConfig: "libmosquitto"),
        .target(name: "Site", dependencies: [
                    "CMosquitto", "BeaconLocation", "LocationBus", "Devices", "Formats", "Positioning", "BlueDotCore", "JSON",
                    log,
                ], path: "Linked/Site", exclude: ["README.md"], swiftSettings: strict),
        .target(name: "HomeAssistant", dependencies: [
                    "Site", "LocationBus", "Devices", "Formats", "Positioning", "BlueDotCore", "JSON", log,
                ], path: "Linked/HomeAssistant", exclude: ["README.md"], swiftSettings: strict),
        .systemLibrary(name: "CSQLite", path: "Linked/CSQLite", pkgConfig: "sqlite3"),
        .target(name: "History", dependencies: ["CSQLite", "LocationBus", "BeaconLocation", "BlueDotCore", "JSON", log],
                path: "Linked/History", exclude: ["README.md"], swiftSettings: strict),
        .target(name: "Gateway", dependencies: [
                    "BeaconLocation", "Site", "HomeAssistant", "GNSS", "SystemIO", "Positioning", "History",
                    "LocationDisplay", "LocationBus", "BlueDotCore", "JSON", "Devices", log,
                ],
                path: "Linked/Gateway",
                swiftSettings: strict),
        .target(name: "FuzzTargets", dependencies: [
                    "HCI", "Scanner", "Formats", "Positioning", "Site", "Gateway", "LocationDisplay", "Devices",
                    "BeaconLocation", "GNSS", "BlueDotCore", "JSON",
                ],
                path: "FuzzTargets", swiftSettings: strict),
        // libFuzzer's driver, declared for Swift (`-sanitize=fuzzer` links it).
        .systemLibrary(name: "CLibFuzzer", path: "CLibFuzzer"),
        .executableTarget(name: "bluedot-fuzz", dependencies: ["FuzzTargets", "CLibFuzzer"], path: "bluedot-fuzz",
                          swiftSettings: strict),
    ]
)
