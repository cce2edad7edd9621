import BeaconLocation
import BlueDotCore
import Formats
import Positioning

/// `bluedot demo`'s data, built deterministically at start-up from the bundled files: the demo lab venue (the
/// BOUN TETAM room's geometry and receivers, invented iBeacons, two drawn floor plans), a self-mode walk through
/// it simulated with Positioning's `Simulator` (fixed seed), and the real tag of the BOUN `straight_01` track heard
/// by the room's receivers. Both start at time 0 and loop together.
public struct DemoScenario: Sendable {
    /// The demo venue.
    public let venue: Venue
    /// The self-mode walk's observations then the tag's, merged in time order, times from 0.
    public let observations: [Observation]
    /// Seconds from the first to the last observation.
    public var durationSeconds: Double { (observations.last?.t ?? 0) - (observations.first?.t ?? 0) }

    /// The seed of the simulated walk.
    public static let seed: UInt64 = 2026

    /// The walk: a loop of the open lab at about 1 m/s, through the doorways of the side rooms.
    public static let walk: [(x: Double, y: Double)] = [
        (10.3, 1.2), (10.3, 4.5), (14.0, 4.5), (16.0, 2.9), (14.0, 4.5), (17.0, 8.8), (14.0, 13.0),
        (16.0, 14.5), (14.0, 13.0), (10.3, 13.2), (6.2, 13.0), (4.3, 14.5), (6.2, 13.0), (3.5, 8.8),
        (6.2, 4.5), (4.3, 2.9), (6.2, 4.5), (10.3, 4.5), (10.3, 1.2),
    ]

    /// Loads the bundled files from `folder` (default: the module's resources) and simulates the walk.
    public init(folder: String = GatewayResources.demoRoot) throws {
        venue = try VenueLoader.load(path: folder + "/demo-lab.venue.json")
        var reader = try ObservationReader(path: folder + "/boun-straight_01.observations.jsonl")
        let tag = try reader.readAll().map(\.observation)
        let walk = Self.simulateWalk(in: venue)
        let tagStart = tag.first?.t ?? 0
        let shiftedTag = tag.map { o in
            var o = o
            o.t -= tagStart
            return o
        }
        observations = (walk + shiftedTag).sorted { $0.t < $1.t }
    }

    /// The walk's observations: only the venue's floor-0 iBeacons advertise (the receivers do not).
    static func simulateWalk(in venue: Venue) -> [Observation] {
        var beacons = venue
        beacons.anchors = venue.anchors.filter { $0.id.hasPrefix("ibeacon:") && $0.floor == 0 }
        var waypoints: [Track.Waypoint] = []
        var t = 0.0
        var previous = walk[0]
        for point in walk {
            let dx = point.x - previous.x, dy = point.y - previous.y
            t += (dx * dx + dy * dy).squareRoot() / 1.0
            waypoints.append(Track.Waypoint(t: t, x: point.x, y: point.y, z: 1.2))
            previous = point
        }
        let track = Track(target: Observation.selfTarget, waypoints: waypoints)
        var configuration = SimulationConfiguration()
        configuration.rateHz = 4
        configuration.shadowingSigmaDB = 2.5
        var rng = Xoshiro256StarStar(seed: seed)
        return Simulator(venue: beacons, configuration: configuration).simulate(tracks: [track], using: &rng)
            .map(\.observation)
    }

    /// The demo's input: everything replayed at real time in a loop, paced and stamped on `clock`.
    public func source(clock: any BlueDotClock) -> PacedReplaySource {
        PacedReplaySource(
            name: "demo", observations: observations, speed: 1, loop: true, loopGapSeconds: 3, clock: clock)
    }
}
