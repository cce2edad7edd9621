import CalibrationKit
import Foundation
import Positioning

/// Builders shared by the calibration tests.
enum CalibrationFixture {
    /// The shared data folder (../shared/data from the package root).
    static let dataDirectory: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("../shared/data").standardizedFileURL.path
    }()

    /// The package root.
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// Whether missing shared data must fail (BLUEDOT_REQUIRE_INTEGRATION=1) instead of skipping.
    static var dataRequired: Bool { ProcessInfo.processInfo.environment["BLUEDOT_REQUIRE_INTEGRATION"] == "1" }

    /// `BLUEDOT_PYTHON`, else `.venv/bin/python` in the package root, when executable (for the virtual world).
    static var python: String? {
        let path = ProcessInfo.processInfo.environment["BLUEDOT_PYTHON"] ?? packageRoot + "/.venv/bin/python"
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// True when the shared data should be used: present, or required (then its absence fails the test).
    static var useSharedData: Bool {
        FileManager.default.fileExists(atPath: dataDirectory + "/sets.json") || dataRequired
    }

    /// A 12 m × 10 m room with six anchors at 2.5 m, each with its own model.
    static func room(models: [PathLossModel]? = nil) -> Venue {
        let positions: [(Double, Double)] = [(0.5, 0.5), (11.5, 0.5), (11.5, 9.5), (0.5, 9.5), (6, 0.3), (6, 9.7)]
        let defaults = [
            PathLossModel(measuredPowerDBm: -55, pathLossExponent: 1.8, shadowingSigmaDB: 3),
            PathLossModel(measuredPowerDBm: -62, pathLossExponent: 2.4, shadowingSigmaDB: 3),
            PathLossModel(measuredPowerDBm: -58, pathLossExponent: 2.0, shadowingSigmaDB: 3),
            PathLossModel(measuredPowerDBm: -61, pathLossExponent: 2.4, shadowingSigmaDB: 3),
            PathLossModel(measuredPowerDBm: -60, pathLossExponent: 2.2, shadowingSigmaDB: 3),
            PathLossModel(measuredPowerDBm: -57, pathLossExponent: 1.6, shadowingSigmaDB: 3),
        ]
        let m = models ?? defaults
        let anchors = positions.enumerated().map { i, p in
            Anchor(id: "a\(i + 1)", x: p.0, y: p.1, z: 2.5, measuredPowerDBm: m[i].measuredPowerDBm,
                   pathLossExponent: m[i].pathLossExponent, shadowingSigmaDB: m[i].shadowingSigmaDB)
        }
        return Venue(name: "test room", anchors: anchors, bounds: Venue.Bounds(minX: 0, minY: 0, maxX: 12, maxY: 10))
    }

    /// A simulated survey of `venue`: a static hold of `seconds` at every point of a grid with `step` spacing,
    /// 5 packets/s per anchor, target at 1.2 m.
    static func survey(of venue: Venue, step: Double = 1.5, seconds: Double = 10, sigmaDB: Double? = nil,
                       seed: UInt64) -> [CalibrationSample] {
        var tracks: [Track] = []
        var y = 1.0, k = 0
        while y < 9.6 {
            var x = 1.0
            while x < 11.6 {
                let t0 = Double(k) * (seconds + 1)
                tracks.append(Track(target: "p\(k)", waypoints: [
                    Track.Waypoint(t: t0, x: x, y: y, z: 1.2), Track.Waypoint(t: t0 + seconds, x: x, y: y, z: 1.2),
                ]))
                k += 1
                x += step
            }
            y += step
        }
        var rng = Xoshiro256StarStar(seed: seed)
        let simulator = Simulator(venue: venue, configuration: SimulationConfiguration(shadowingSigmaDB: sigmaDB))
        return simulator.simulate(tracks: tracks, using: &rng).map { p in
            CalibrationSample(anchor: p.observation.anchor, rssiDBm: p.observation.rssiDBm, x: p.truth.x,
                              y: p.truth.y, z: p.truth.z ?? 1.2)
        }
    }

    /// A fresh scratch folder.
    static func scratch() throws -> String {
        let path = NSTemporaryDirectory() + "/bluedot-calibration-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
