import BeaconLocation
import BlueDotCore
import Foundation
import Gateway
import LocationBus
import LocationDisplay
import Logging
import Positioning

/// A small world for router tests: a venue with three anchors and a plan, a web root and a fake Leaflet folder
/// in a scratch directory, a hub with two fixes.
struct RouterFixture {
    let directory: URL
    let venue: Venue
    let clock = ManualClock(start: 100)
    let hub: LocationHub
    let metrics = GatewayMetrics()

    init(leaflet: Bool = true) throws {
        hub = LocationHub(clock: clock)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bluedot-gw-\(UUID().uuidString)")
        let web = directory.appendingPathComponent("web")
        let leafletDirectory = directory.appendingPathComponent("leaflet")
        try FileManager.default.createDirectory(at: web.appendingPathComponent("img"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: leafletDirectory.appendingPathComponent("images"), withIntermediateDirectories: true)
        try "<!doctype html><title>page</title>".write(to: web.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        try "console.log(1)".write(to: web.appendingPathComponent("app.js"), atomically: true, encoding: .utf8)
        try "<svg/>".write(to: web.appendingPathComponent("img/logo.svg"), atomically: true, encoding: .utf8)
        try "secret".write(to: directory.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
        if leaflet {
            try "/* leaflet */".write(to: leafletDirectory.appendingPathComponent("leaflet.js"), atomically: true, encoding: .utf8)
            try "png".write(to: leafletDirectory.appendingPathComponent("images/marker.png"), atomically: true, encoding: .utf8)
            for (name, text) in [("leaflet.js.map", "{}"), ("leaflet.js.brotli", "br")] {
                try text.write(to: leafletDirectory.appendingPathComponent(name), atomically: true, encoding: .utf8)
            }
        }
        let plan = directory.appendingPathComponent("plan.svg")
        try "<svg xmlns=\"http://www.w3.org/2000/svg\"/>".write(to: plan, atomically: true, encoding: .utf8)
        venue = Venue(
            name: "Test \"lab\"", origin: Venue.Origin(latitude: 52.0, longitude: 21.0, bearingDegrees: 0),
            anchors: [
                Anchor(id: "a1", x: 0, y: 0, z: 2), Anchor(id: "a2", x: 10, y: 0, z: 2),
                Anchor(id: "a3", x: 0, y: 8, z: 2, floor: 1),
            ],
            floors: [Venue.Floor(floor: 0, name: "Ground", planImage: plan.path)],
            bounds: Venue.Bounds(minX: 0, minY: 0, maxX: 10, maxY: 8))
        hub.publish(Location(timestamp: 100, targetID: "self", x: 1.5, y: 2.5, floor: 0, horizontalAccuracyMeters: 1.2, lastKnown: false, anchorCount: 3))
        hub.publish(Location(timestamp: 100, targetID: "tag-7", x: 4, y: 5, floor: 1, horizontalAccuracyMeters: 2, lastKnown: false, anchorCount: 2))
    }

    /// A logger for what the tests do not read (`FileMiddleware`'s folders at info).
    static let quiet: Logger = {
        var logger = Logger(label: "bluedot.test")
        logger.logLevel = .warning
        return logger
    }()

    func dependencies(token: String? = nil) -> GatewayRouter.Dependencies {
        GatewayRouter.Dependencies(
            hub: hub, metrics: metrics, venue: venue,
            files: StaticFiles(
                webRoot: directory.appendingPathComponent("web").path,
                leafletPath: directory.appendingPathComponent("leaflet").path, logger: Self.quiet),
            token: token, sourceName: "test", source: LocationSource(id: "test", clock: clock), clock: clock)
    }
}
