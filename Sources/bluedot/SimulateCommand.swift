import ArgumentParser
import Formats
import FoundationEssentials
import Positioning

/// `bluedot simulate`: synthetic observations for a venue and a track (docs/formats.md).
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Simulate the observations a venue's anchors log for targets moving along a track.",
        discussion: """
            The track is JSONL of waypoints {"t", "x", "y", "z"?} or truth lines (with "target"; one track per \
            target), interpolated linearly. Observations go to standard output in time order; the seed and a \
            summary go to standard error. The same arguments and seed give the same bytes.
            """
    )

    @Option(help: "Venue JSON file.")
    var venue: String

    @Option(help: "Track JSONL: waypoints or truth lines.")
    var track: String

    @Option(help: "Target id for waypoints that name none (they are `self` otherwise).")
    var target: String?

    @Option(help: "Seed of the random generator.")
    var seed: UInt64 = 1

    @Option(help: "Shadowing standard deviation, dB (default: each anchor's model shadowingSigma).")
    var sigma: Double?

    @Option(help: "Packets per second on each anchor-target link.")
    var rate: Double = 5

    @Flag(help: "Poisson packet times instead of a regular interval.")
    var poisson = false

    @Option(help: "Regular packet times: each packet delayed by up to this many seconds (below 1/rate).")
    var jitter: Double = 0

    @Option(help: "Packets weaker than this (dBm) are not heard.")
    var sensitivity: Double = -100

    @Option(help: "Target height in metres where the track gives no z.")
    var height: Double = 1.2

    @Option(help: "Round RSSI to this many decimals (0: whole dBm, as most receivers log).")
    var rssiDecimals: Int?

    @Option(help: "Also write the true position at each packet time to this truth JSONL file.")
    var truth: String?

    @Flag(help: "Write survey lines (observations with their truth) instead of plain observations.")
    var survey = false

    /// The simulator's settings from the options.
    var simulation: SimulationConfiguration {
        SimulationConfiguration(rateHz: rate, arrivals: poisson ? .poisson : .regular, shadowingSigmaDB: sigma,
                                jitterSeconds: jitter, sensitivityDBm: sensitivity, defaultHeightMeters: height,
                                rssiDecimals: rssiDecimals)
    }

    func validate() throws {
        if let problem = simulation.problem { throw ValidationError(problem) }
    }

    func run() throws {
        let site = try VenueLoader.load(path: venue)
        var tracks = Track.tracks(from: try TruthReader.read(path: track))
        if let target {
            for i in tracks.indices where tracks[i].target == Observation.selfTarget { tracks[i].target = target }
        }
        guard !tracks.isEmpty else { throw ValidationError("\(track): no waypoints") }
        var out = BufferedLines.standardOutput()
        var truthOut = try truth.map { (path) throws(ValidationError) in try BufferedLines(creating: path) }
        var rng = Xoshiro256StarStar(seed: seed)
        var count = 0
        Simulator(venue: site, configuration: simulation).run(tracks: tracks, using: &rng) { packet in
            out.append(ObservationWriter.line(packet.observation, truth: survey ? packet.truth : nil))
            truthOut?.append(ObservationWriter.truthLine(packet.truth))
            count += 1
        }
        try out.close()
        try truthOut?.close()
        StandardError.write("simulate: seed \(seed), \(site.anchors.count) anchors, \(tracks.count) track(s), \(count) packets heard")
    }
}
