import ArgumentParser
import BeaconLocation
import BlueDotCore
import CalibrationRuns
import Devices
import Formats
import FoundationEssentials
import Gateway
import JSON
import Logging
import Positioning

/// `bluedot replay`: observation JSONL in, location JSONL out, causal and byte-for-byte deterministic.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay an observation stream through the positioning engine and write location JSONL.",
        discussion: """
            Fixes come on a fixed grid per target (its first observation, then every --interval seconds) \
            and use only observations at or before their time. The reader's counts go to stderr.
            """
    )

    /// How the engine models the target.
    enum Mode: String, ExpressibleByArgument, CaseIterable {
        case moving, `static`
    }

    @Argument(help: "Observation JSONL file, or a btsnoop recording (self mode: anchors are the beacons' ids).")
    var input: String

    @Option(help: "Venue JSON file.")
    var venue: String

    @Option(help: "Seconds between fixes on each target's grid.")
    var interval: Double = 1.0

    @Option(name: .customLong("target"), help: ArgumentHelp("Locate only this target (repeatable; default all).",
                                                           valueName: "id"))
    var targets: [String] = []

    @Option(name: .customLong("calibrate"),
            help: ArgumentHelp("Fit the venue's path-loss model on this survey first (repeatable).",
                               valueName: "survey"))
    var surveys: [String] = []

    @Option(help: "Target model: moving (walkers, robots) or static (scans of a device that stays put).")
    var mode: Mode = .moving

    @Flag(inversion: .prefixedNo, help: """
        With --calibrate: also calibrate the accuracy radius on held-out replays of the surveys (each file, run \
        or surveyed point replayed by an engine calibrated without it), so 68% of fixes fall inside it.
        """)
    var radiusCalibration = true

    @Option(help: """
        Override the mode's filter update: rssi (EKF on each anchor's RSSI), trilateration (a fix per tick \
        fed to the filter) or snapshot (a fresh fix per tick, no dynamics).
        """)
    var update: EngineConfiguration.UpdateMethod?

    @Option(name: .shortAndLong, help: "Write here instead of stdout.")
    var output: String?

    @Option(help: ArgumentHelp(
        "Learn the anchors' models from the replay's own traffic (self-calibration, as bluedot run does), and "
            + "write what was learned here (docs/formats.md, \"Learned calibration\").",
        valueName: "file"))
    var learn: String?

    @Flag(help: "Stop at the first bad input line instead of counting and skipping it.")
    var strict = false

    /// `--devices`, as `bluedot run` takes it.
    @OptionGroup var settings: SettingFlags<ReplaySettings>

    /// The registry named by `--devices` (targets then take its devices' ids), knowing the venue's anchors, or nil.
    private func devices(venue: Venue) throws -> DeviceIdentifier? {
        var c = GatewayConfiguration()
        try c.apply(settings.given)
        guard c.devicesPath != nil else { return nil }
        return try c.deviceIdentifier(anchorIDs: venue.anchors.map(\.id), logger: Logger(label: "bluedot.replay"))
    }

    func validate() throws {
        guard interval.isFinite, interval >= 0.01, interval <= 3600 else {
            throw ValidationError("--interval must be between 0.01 and 3600 seconds, got \(interval)")
        }
    }

    func run() async throws {
        var site = try VenueLoader.load(path: venue)
        var engine = mode == .static ? EngineConfiguration.stationary : EngineConfiguration.moving
        engine.intervalSeconds = interval
        if let update { engine.update = update }
        if !surveys.isEmpty {
            let uncalibrated = site
            let outcome = try SurveyCalibration.calibrate(venue: site, surveys: surveys, strict: strict)
            for report in outcome.reports { Self.log("calibrate: \(report)") }
            let fit = outcome.result.site.model
            func f(_ x: Double, _ decimals: Int) -> String { JSONText.fixed(x, decimals: decimals) }
            Self.log("calibrate: site measuredPower \(f(fit.measuredPowerDBm, 2)) dBm, exponent "
                     + "\(f(fit.pathLossExponent, 3)), sigma \(f(fit.shadowingSigmaDB, 2)) dB, "
                     + "\(outcome.result.anchors.count) anchors fitted")
            if let b = outcome.bodyShadow {
                Self.log("calibrate: body shadow \(f(b.sigmaDB, 2)) dB per component (\(b.moments) scans; within a scan "
                         + "\(f(b.withinSigmaDB, 2)) dB)\(engine.usesBodyShadow ? "" : ", not used for moving targets")")
            }
            site = outcome.venue
            if radiusCalibration {
                let radiusMode: RadiusCalibration.Mode = mode == .static ? .static : .moving
                do {
                    let heldOut = try HeldOutCalibration(venue: uncalibrated, surveys: outcome.surveys, mode: radiusMode,
                                                         configuration: engine)
                    site.radius[radiusMode] = heldOut.calibration()
                    Self.log("calibrate: " + heldOut.summary.text)
                } catch {
                    Self.log("calibrate: radius not calibrated: \(error)")
                }
            }
            outcome.configure(&engine)
        }
        if learn != nil { engine.selfCalibration = SelfCalibration.Settings() }
        var sink = try output.map { (path) throws(ValidationError) in try BufferedLines(creating: path) } ?? .standardOutput()
        let devices = try devices(venue: site)
        if RecordingReplay.isRecording(path: input) {
            try replayRecording(site: site, engine: engine, devices: devices, sink: &sink)
            return
        }
        let replay = ReplayRun(venue: site, configuration: engine, targets: Set(targets), strict: strict,
                               devices: devices)
        let lines = LockedValue(sink)
        let summary = try await replay.run(path: input) { fixes in
            lines.withLock { sink in for fix in fixes { sink.append(LocationWriter.line(fix)) } }
        }
        sink = lines.value
        try sink.close()
        try writeLearned(summary.learned, venue: site)
        Self.log("replay: \(summary.read)")
        Self.log("replay: \(summary.engine.fixes) fixes, \(summary.engine.outliers) outliers rejected, "
                 + "\(summary.engine.late) late, \(summary.engine.invalid) invalid, "
                 + "\(summary.otherTargets) of other targets skipped")
    }

    /// A btsnoop recording through the scanner's decoder into the engine: target `self`, record times.
    private func replayRecording(
        site: Venue, engine configuration: EngineConfiguration, devices: DeviceIdentifier?, sink: inout BufferedLines
    ) throws {
        let pipeline = PositioningPipeline(venue: site, configuration: configuration)
        let mapper = SightingMapper(mode: .self, devices: devices ?? .beaconsOnly())
        let summary = try RecordingReplay.run(path: input, pipeline: pipeline, mapper: mapper) { fix in
            if targets.isEmpty || targets.contains(fix.targetID) { sink.append(LocationWriter.line(fix)) }
        }
        try sink.close()
        try writeLearned(pipeline.learnedCalibration, venue: site)
        Self.log("replay: \(input): \(summary.decoded.summary), \(summary.observations) observations")
        let counters = pipeline.counters
        Self.log("replay: \(counters.fixes) fixes, \(counters.unknownAnchors) observations of beacons "
                 + "not in the venue, \(counters.outliers) outliers rejected, \(counters.late) late")
        if let damage = summary.damage {
            if strict { throw ValidationError("\(damage)") }
            Self.log("replay: the recording is damaged; replayed up to the damage: \(damage)")
        }
    }

    /// `--learn`: what self-calibration learned, to its file.
    private func writeLearned(_ learned: LearnedCalibration?, venue: Venue) throws {
        guard let path = learn, let learned else { return }
        try (LearnedCalibrationFile.json(learned, venue: venue.name) + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        Self.log("replay: learned \(learned.counters.accepted) updates from \(learned.counters.records) ticks "
                 + "(\(learned.counters.rejectedHeldOut) refused held out); site \(String(format: "%.1f", learned.site.levelDBm)) "
                 + "dBm at 4 m, exponent \(String(format: "%.2f", learned.site.exponent)); written to \(path)")
    }

    static func log(_ text: String) {
        StandardError.write(text)
    }
}

extension EngineConfiguration.UpdateMethod: ExpressibleByArgument {}

/// `bluedot replay`'s settings of the gateway's table: the device registry.
enum ReplaySettings: SettingSelection {
    static var keys: Set<String>? { ["devices"] }
}
