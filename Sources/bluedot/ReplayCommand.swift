import ArgumentParser
import Foundation
import Positioning

/// `bluedot replay`: observation JSONL in, location JSONL out, causal and byte-for-byte deterministic.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay an observation stream through the positioning engine and write location JSONL.",
        discussion: """
            Fixes come on a fixed grid per target (its first observation, then every --interval seconds) and
            use only observations at or before their time. The reader's counts go to stderr.
            """
    )

    /// How the engine models the target.
    enum Mode: String, ExpressibleByArgument, CaseIterable {
        case moving, `static`
    }

    @Argument(help: "Observation JSONL file.")
    var input: String

    @Option(help: "Venue JSON file.")
    var venue: String

    @Option(help: "Seconds between fixes on each target's grid.")
    var interval: Double = 1.0

    @Option(name: .customLong("target"), help: "Locate only this target (repeatable; default all).")
    var targets: [String] = []

    @Option(name: .customLong("calibrate"), help: "Fit the venue's path-loss model on this survey first (repeatable).")
    var surveys: [String] = []

    @Option(help: "Target model: moving (walkers, robots) or static (scans of a device that stays put).")
    var mode: Mode = .moving

    @Option(name: .shortAndLong, help: "Write here instead of stdout.")
    var output: String?

    @Flag(help: "Stop at the first bad input line instead of counting and skipping it.")
    var strict = false

    func validate() throws {
        guard interval.isFinite, interval >= 0.01, interval <= 3600 else {
            throw ValidationError("--interval must be between 0.01 and 3600 seconds, got \(interval)")
        }
    }

    func run() throws {
        var site = try VenueLoader.load(path: venue)
        var engine = mode == .static ? EngineConfiguration.stationary : EngineConfiguration.moving
        engine.intervalSeconds = interval
        if !surveys.isEmpty {
            let outcome = try SurveyCalibration.calibrate(venue: site, surveys: surveys, strict: strict)
            for report in outcome.reports { Self.log("calibrate: \(report)") }
            let fit = outcome.result.site.model
            Self.log(String(format: "calibrate: site measuredPower %.2f dBm, exponent %.3f, sigma %.2f dB, %d anchors fitted",
                            fit.measuredPowerDBm, fit.pathLossExponent, fit.shadowingSigmaDB,
                            outcome.result.anchors.count))
            site = outcome.venue
            engine.targetHeightMeters = outcome.result.targetHeightMeters
        }
        var sink = try FixOutput(path: output)
        let replay = ReplayRun(venue: site, configuration: engine, targets: Set(targets), strict: strict)
        let summary = try replay.run(path: input) { sink.write(LocationWriter.line($0)) }
        try sink.close()
        Self.log("replay: \(summary.read)")
        Self.log("replay: \(summary.engine.fixes) fixes, \(summary.engine.outliers) outliers rejected, "
                 + "\(summary.engine.late) late, \(summary.otherTargets) of other targets skipped")
    }

    static func log(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

/// Buffered line output to stdout or a file.
private struct FixOutput {
    private let handle: FileHandle
    private let ownsHandle: Bool
    private var buffer: [UInt8] = []

    init(path: String?) throws {
        if let path {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw ValidationError("cannot create \(path)")
            }
            handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            ownsHandle = true
        } else {
            handle = FileHandle.standardOutput
            ownsHandle = false
        }
        buffer.reserveCapacity(1 << 16)
    }

    mutating func write(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        handle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    mutating func close() throws {
        flush()
        if ownsHandle { try handle.close() }
    }
}
