import ArgumentParser
import CalibrationKit
import Formats
import Foundation
import Logging
import Positioning
import SystemIO

/// `bluedot-calibrate survey`: guided recording at known points, appended to a survey file.
struct SurveyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "survey",
        abstract: "Record at known points and append survey lines (observations with truth) to a file.",
        discussion: """
            At each prompt on stdin, name a point from --points or type x,y[,z] (metres); BlueDot records for \
            --seconds and appends one survey line per packet heard (anchor = the beacon's canonical id, target \
            self, truth = the point). An empty line, q, or the end of input finishes. With --replay, each point \
            takes the next --seconds of a btsnoop recording instead of a live scan.
            """
    )

    @OptionGroup var source: SurveySourceOptions

    @Option(help: "Survey JSONL file to append to (created when missing).")
    var out: String

    @Option(help: "Points file: one `NAME x y [z]` per line.")
    var points: String?

    @Option(help: "Seconds to record at each point.")
    var seconds: Double = 10

    @Option(help: "Target height when a point has none, metres.")
    var height: Double = 1.2

    @Option(help: "Venue JSON: keep only its anchors (default: every beacon heard).")
    var venue: String?

    @Option(help: "Log level on stderr.")
    var logLevel: String = "warning"

    func validate() throws {
        guard seconds.isFinite, seconds > 0, seconds <= 3600 else {
            throw ValidationError("--seconds must be in (0, 3600], got \(seconds)")
        }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
    }

    func run() async throws {
        var list = SurveyPointList(points: [])
        if let points {
            list = try SurveyPointList(text: try WholeFile.text(points), file: points)
        }
        let anchors = try venue.map { Set(try VenueLoader.load(path: $0).anchors.map(\.id)) }
        let session = SurveySession(points: list, seconds: seconds, defaultHeightMeters: height, anchors: anchors)
        let output = try AppendFile(path: out)
        defer { output.close() }
        func say(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }
        let records: [SurveySession.PointRecord]
        if let replay = source.replay {
            var recorder = try ReplayRecorder(path: replay)
            records = try await session.run(readLine: { Swift.readLine() }, say: say, write: output.write,
                                            recorder: &recorder)
            if let stopped = recorder.stoppedBy { say("recording stopped early: \(stopped)") }
        } else if let transport = try source.controller.makeTransport() {
            let level = Logger.Level(rawValue: logLevel) ?? .warning
            LoggingSystem.bootstrap { name in
                var handler = StreamLogHandler.standardError(label: name)
                handler.logLevel = level
                return handler
            }
            var recorder = ScannerRecorder(transport: transport, logger: Logger(label: "bluedot.calibrate.survey"))
            do {
                records = try await session.run(readLine: { Swift.readLine() }, say: say, write: output.write,
                                                recorder: &recorder)
            } catch {
                await recorder.stop()
                throw error
            }
            await recorder.stop()
        } else {
            throw ValidationError("give exactly one of --hci, --h4-tcp, --h4-tty, --replay")
        }
        let lines = records.reduce(0) { $0 + $1.lines }
        say("survey: \(records.count) points, \(lines) lines appended to \(out)")
    }
}
