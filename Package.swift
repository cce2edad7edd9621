// swift-tools-version: 6.1
// BlueDot: an indoor location engine for Bluetooth LE beacons on Linux gateways.
//
// The module graph is the targets below: README.md ("Architecture") draws it from this file
// (Tools/module-graph/draw.py, checked by Tools/dev test), so it is written down once. Arrows point one way; the pure
// modules (BlueDotCore, JSON, HCI, Positioning, LocationDisplay) touch no file, socket or C library, and SystemIO is
// the one module that talks to the operating system.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

/// The numeric modules (positioning, calibration) optimized in every build when BLUEDOT_OPTIMIZE_MATH is set:
/// `Tools/dev test` sets it, so the sanitized debug build that runs every test replays the datasets at optimized
/// speed (minutes instead of most of CI's budget) while AddressSanitizer still instruments them.
let math: [SwiftSetting] = strict + (Context.environment["BLUEDOT_OPTIMIZE_MATH"] == "1" ? [.unsafeFlags(["-O"])] : [])

/// `bluedot --version`: the package version and the commit, from BLUEDOT_VERSION and BLUEDOT_COMMIT, which
/// Tools/package/build sets. Defines of this one C target, so that a new commit recompiles one file, not the package.
let buildInfo: [CSetting] = ["BLUEDOT_VERSION", "BLUEDOT_COMMIT"].compactMap { name in
    guard let value = Context.environment[name], !value.isEmpty,
          value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".+~-:".contains($0)) }) else { return nil }
    return .define(name, to: "\"\(value)\"")
}

let package = Package(
    name: "BlueDot",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HCI", targets: ["HCI"]),
        .library(name: "SystemIO", targets: ["SystemIO"]),
        .library(name: "Scanner", targets: ["Scanner"]),
        .library(name: "BlueDotCore", targets: ["BlueDotCore"]),
        .library(name: "Positioning", targets: ["Positioning"]),
        .library(name: "Formats", targets: ["Formats"]),
        .library(name: "Gateway", targets: ["Gateway"]),
        .library(name: "LocationDisplay", targets: ["LocationDisplay"]),
        .library(name: "BeaconLocation", targets: ["BeaconLocation"]),
        .executable(name: "bluedot", targets: ["bluedot"]),
        .executable(name: "bluedot-calibrate", targets: ["bluedot-calibrate"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // Pure building blocks every module shares: the clock, lock, broadcast, heap, seeded generator, the venue
        // projection, the one location value.
        .target(name: "BlueDotCore", dependencies: ["CBuildInfo"], exclude: ["README.md"], swiftSettings: strict),
        // The package version and commit that `Tools/dev package` hands to the build (`--version`).
        .target(name: "CBuildInfo", path: "Sources/C/CBuildInfo", cSettings: buildInfo),
        // Pure: the JSON toolkit, writing (JSONWriter) and reading (a scanner, a tree for small files, line framing,
        // JSON lines, a string table for ids read millions of times).
        .target(name: "JSON", exclude: ["README.md"], swiftSettings: strict),
        // Pure: HCI packets, commands, events, AD structures, beacon frames, H4 framing, btsnoop codec.
        .target(name: "HCI", dependencies: ["BlueDotCore", "JSON"], exclude: ["README.md"], swiftSettings: strict),
        // System library: BlueZ's libbluetooth, found through pkg-config.
        .systemLibrary(
            name: "CBlueZ",
            path: "Sources/C/CBlueZ",
            pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]
        ),
        // The one module that talks to the operating system: BlueZ's raw HCI socket, TCP, serial lines, btsnoop
        // files, and every file read (whole, or a chunk at a time).
        .target(
            name: "SystemIO",
            dependencies: ["HCI", "CBlueZ", "BlueDotCore", "JSON", .product(name: "Logging", package: "swift-log")],
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        // Controller session over any HCITransport: init sequence, deadlines, scanning, reconnects.
        .target(
            name: "Scanner",
            dependencies: ["HCI", "BlueDotCore", "JSON", .product(name: "Logging", package: "swift-log")],
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        // Pure maths: path loss, filters, trilateration, Kalman filter, the streaming engine, evaluation, simulation.
        .target(name: "Positioning", dependencies: ["BlueDotCore", "JSON"], exclude: ["README.md"], swiftSettings: math),
        // System libraries for the files read once, found through pkg-config: libyaml (ESPresense-companion
        // configurations), expat (GPX) and libzip (zipped IMDF archives).
        .systemLibrary(name: "CYAML", path: "Sources/C/CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CExpat", path: "Sources/C/CExpat", pkgConfig: "expat", providers: [.apt(["libexpat1-dev"])]),
        .systemLibrary(name: "CZip", path: "Sources/C/CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),
        // The interchange formats: venue, observation, truth and location JSON(L) readers/writers; YAML, GPX and
        // zipped IMDF through the C libraries above, each wrapped once; files read through SystemIO.
        .target(name: "Formats", dependencies: [
                    "Positioning", "BlueDotCore", "JSON", "SystemIO", "CYAML", "CExpat", "CZip",
                ],
                exclude: ["README.md"], swiftSettings: strict),
        // System library: OpenSSL's libcrypto (AES-128 for resolvable private addresses), found through pkg-config;
        // libmosquitto links the same library for mqtts.
        .systemLibrary(
            name: "CLibCrypto", path: "Sources/C/CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]
        ),
        // The device registry: its file, IRK resolution of private addresses, devices, beacons and strangers; the
        // BlueZ and ESPresense key imports.
        .target(
            name: "Devices",
            dependencies: [
                "HCI", "Formats", "BlueDotCore", "JSON", "SystemIO", "CLibCrypto",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        // Pure display engine (ArcGIS Runtime's): data sources, the blue dot's behaviour, the map viewport.
        .target(name: "LocationDisplay", dependencies: ["BlueDotCore"], exclude: ["README.md"], swiftSettings: strict),
        // The bus (MapsIndoors' location sources): `LocationSource` and its observers, the producers' protocol, room
        // changes derived once, the rooms' occupancy relay, and the adapter to a `LocationDataSource` at the edge.
        .target(
            name: "LocationBus", dependencies: ["BlueDotCore", "LocationDisplay", "Positioning"], exclude: ["README.md"],
            swiftSettings: strict
        ),
        // The spine from Bluetooth: inputs (controller, recording, observation files, simulation) -> one pipeline ->
        // `BeaconLocationSource`; replays through the same pipeline; the location file's playback.
        .target(
            name: "BeaconLocation",
            dependencies: [
                "HCI", "SystemIO", "Scanner", "Positioning", "Formats", "Devices", "LocationDisplay", "LocationBus",
                "BlueDotCore", "JSON", .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        // The system's GNSS: gpsd's protocol and source, the indoor/outdoor hand-over, GPX playback.
        .target(
            name: "GNSS",
            dependencies: [
                "LocationBus", "LocationDisplay", "Formats", "SystemIO", "Positioning", "BlueDotCore", "JSON",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        // System library: Eclipse Mosquitto's MQTT client library, found through pkg-config.
        .systemLibrary(
            name: "CMosquitto",
            path: "Sources/C/CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        // The one MQTT module: the libmosquitto client, the payloads (sighting batches, ESPresense reports), a
        // receiver publishing its sightings, the site's sightings (and ESPresense nodes) as an input of the spine,
        // locations and status published back.
        .target(
            name: "Site",
            dependencies: [
                "CMosquitto", "BeaconLocation", "LocationBus", "Devices", "Formats", "Positioning", "BlueDotCore", "JSON",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        // Home Assistant over the site's MQTT: discovery of every target's tracker and sensors, their states, the
        // ledger of what was announced, the roster of names.
        .target(
            name: "HomeAssistant",
            dependencies: [
                "Site", "LocationBus", "Devices", "Formats", "Positioning", "BlueDotCore", "JSON",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        // System library: SQLite 3, found through pkg-config.
        .systemLibrary(
            name: "CSQLite", path: "Sources/C/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]
        ),
        // Location history: every fix and room change in an SQLite database (WAL, batched writes on a thread of its
        // own, retention), its queries and GPX export.
        .target(
            name: "History",
            dependencies: [
                "CSQLite", "LocationBus", "BeaconLocation", "BlueDotCore", "JSON",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        // The daemon: pipeline (source -> scanner -> engine -> fixes), web map, API, metrics, config.
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
                .product(name: "Logging", package: "swift-log"),
            ],
            // Page/, Demo/ and API/ are plain files found at run time (GatewayResources), not a resource bundle.
            exclude: ["README.md", "Page", "Demo", "API"],
            swiftSettings: strict
        ),
        // The controller options every scanning command shares (--hci, --h4-tcp, --h4-tty, --baud, --user-channel).
        .target(
            name: "ControllerOptions",
            dependencies: ["HCI", "SystemIO", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "bluedot",
            dependencies: [
                "HCI", "SystemIO", "Scanner", "Positioning", "Formats", "BeaconLocation", "Gateway", "ControllerOptions",
                "BlueDotCore", "JSON", "Site", "Devices", "CalibrationRuns",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HCITests", dependencies: ["HCI", "BlueDotCore", "JSON"], resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(name: "SystemIOTests", dependencies: ["HCI", "SystemIO", "CBlueZ", "BlueDotCore"], swiftSettings: strict),
        .testTarget(
            name: "ScannerTests",
            dependencies: ["HCI", "Scanner", "BlueDotCore", "JSON", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "Gateway", "LocationDisplay", "LocationBus", "Positioning", "Formats", "HCI", "SystemIO", "Scanner",
                "bluedot", "BeaconLocation", "GNSS", "BlueDotCore", "JSON", "History", "Devices",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "DevicesTests", dependencies: ["Devices", "HCI", "Formats"], swiftSettings: strict),
        .testTarget(name: "LocationDisplayTests", dependencies: ["LocationDisplay", "BlueDotCore"], swiftSettings: strict),
        .testTarget(
            name: "LocationBusTests", dependencies: ["LocationBus", "LocationDisplay", "Positioning", "BlueDotCore"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "BeaconLocationTests",
            dependencies: [
                "BeaconLocation", "LocationDisplay", "LocationBus", "GNSS", "HCI", "SystemIO", "Scanner", "Positioning",
                "Formats", "Devices", "BlueDotCore", "JSON", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "GNSSTests",
            dependencies: [
                "GNSS", "LocationBus", "LocationDisplay", "Formats", "SystemIO", "Positioning", "BlueDotCore", "JSON",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HistoryTests",
            dependencies: ["History", "LocationBus", "BeaconLocation", "LocationDisplay", "Formats", "BlueDotCore"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SiteTests",
            dependencies: [
                "Site", "LocationBus", "Positioning", "Formats", "LocationDisplay", "BlueDotCore", "JSON",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HomeAssistantTests",
            dependencies: [
                "HomeAssistant", "Site", "LocationBus", "Positioning", "Formats", "LocationDisplay", "BlueDotCore", "JSON",
            ],
            swiftSettings: strict
        ),
        // The MQTT client's threads under load against a real mosquitto (also run under TSan by Tools/tsan).
        .testTarget(
            name: "MQTTClientTests",
            dependencies: ["Site", "BlueDotCore", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        // Drives the built `bluedot` binary against the Bumble virtual world (Tools/virtual-world) and a real
        // mosquitto broker (the site's receivers and solver, in-process and as processes).
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "HCI", "SystemIO", "Scanner", "bluedot", "Site", "HomeAssistant", "BeaconLocation", "LocationBus", "Formats",
                "Positioning", "LocationDisplay", "BlueDotCore", "JSON", "Devices",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The fuzz targets (`Tools/fuzz`): bytes into the decoders and parsers, with the properties that must hold.
        // Built here for the regression tests; `Tools/fuzz/Package.swift` builds them for libFuzzer.
        .target(
            name: "FuzzTargets",
            dependencies: [
                "HCI", "Scanner", "Formats", "Positioning", "Gateway", "LocationDisplay", "Devices", "BeaconLocation",
                "GNSS", "BlueDotCore", "JSON",
            ],
            path: "Tools/fuzz/FuzzTargets",
            swiftSettings: strict
        ),
        // Every seed and every input that once crashed a fuzz target, run through it again.
        .testTarget(name: "FuzzRegressionTests", dependencies: ["FuzzTargets"], swiftSettings: strict),
        // Developer benchmarks and the accuracy tuning loop (`bluedot-bench positioning|accuracy|latency`).
        .executableTarget(
            name: "bluedot-bench",
            dependencies: [
                "Positioning", "Formats", "HCI", "SystemIO", "Scanner", "LocationDisplay", "LocationBus", "BeaconLocation",
                "BlueDotCore", "JSON", "Site", "History", "Gateway", "CalibrationRuns", "Devices",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tools/bluedot-bench",
            swiftSettings: strict
        ),
        .testTarget(
            name: "PositioningTests",
            dependencies: ["Positioning", "Formats", "BeaconLocation", "CalibrationRuns", "BlueDotCore", "JSON", "SystemIO"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        // Calibration: survey sessions, per-anchor fit with flags, Cramér-Rao planner, accuracy check (pure).
        // The calibration runs the daemon's `bluedot replay --calibrate` shares with the calibration tool: survey
        // fits and the held-out radius, each fold through the spine's pipeline (FoundationEssentials only: no
        // Foundation or ICU in the daemon's binary).
        .target(name: "CalibrationRuns", dependencies: ["Positioning", "Formats", "BeaconLocation", "BlueDotCore"],
                path: "Calibration/CalibrationRuns", swiftSettings: math),
        .target(name: "CalibrationKit", dependencies: ["Positioning", "Formats", "CalibrationRuns", "BlueDotCore", "SystemIO"],
                path: "Calibration/CalibrationKit",
                swiftSettings: math),
        // System library: Cairo 2-D graphics (PNG, SVG, PDF), found through pkg-config.
        .systemLibrary(
            name: "CCairo", path: "Sources/C/CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]
        ),
        // Draws accuracy maps over the floor plan with Cairo.
        .target(
            name: "CalibrationDrawing", dependencies: ["CalibrationKit", "Positioning", "CCairo"],
            path: "Calibration/CalibrationDrawing", swiftSettings: strict
        ),
        // `bluedot-calibrate survey|fit|plan|accuracy`.
        .executableTarget(
            name: "bluedot-calibrate",
            dependencies: [
                "CalibrationKit", "CalibrationRuns", "CalibrationDrawing", "Positioning", "Formats", "HCI", "SystemIO",
                "Scanner", "ControllerOptions", "BlueDotCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Calibration/bluedot-calibrate", swiftSettings: strict
        ),
        .testTarget(
            name: "CalibrationTests",
            dependencies: [
                "CalibrationKit", "CalibrationRuns", "CalibrationDrawing", "Positioning", "Formats", "BeaconLocation", "HCI",
                "bluedot-calibrate",
            ],
            swiftSettings: strict
        ),
    ]
)
