import Formats
import Foundation
import Positioning

/// The guided survey loop: ask where the target is, record there, append survey lines, repeat.
///
/// The operator answers each prompt with a point name (from the points list) or typed coordinates `x,y[,z]`;
/// an empty line, `q` or the end of input ends the survey. Every reading heard at a point becomes one survey
/// line (`docs/formats.md`): anchor = the canonical beacon id, target = `self`, `truth` = the point. Pure: the
/// prompt input, the recorder and the output are passed in, so a test pipes its answers through.
public struct SurveySession {
    /// Named points the operator may refer to.
    public var points: SurveyPointList
    /// How long to record at each point, seconds.
    public var seconds: Double
    /// Height used when a point has none, metres.
    public var defaultHeightMeters: Double
    /// Only these anchors are written (e.g. the venue's); nil writes every beacon heard.
    public var anchors: Set<String>?

    /// What one recorded point produced.
    public struct PointRecord: Sendable, Hashable {
        /// The point as recorded (its height filled in).
        public var point: SurveyPoint
        /// Survey lines written.
        public var lines: Int
        /// Distinct anchors heard.
        public var anchorsHeard: Int
        /// Readings skipped because their anchor is not in `anchors`.
        public var skipped: Int
    }

    /// Creates a session.
    public init(points: SurveyPointList = SurveyPointList(points: []), seconds: Double,
                defaultHeightMeters: Double = 1.2, anchors: Set<String>? = nil) {
        self.points = points
        self.seconds = seconds
        self.defaultHeightMeters = defaultHeightMeters
        self.anchors = anchors
    }

    /// Runs the loop until the operator stops or input ends.
    ///
    /// - Parameters:
    ///   - readLine: the next answer line, nil at end of input.
    ///   - say: prompts and per-point summaries for the operator.
    ///   - write: one survey line (no newline) to append.
    ///   - recorder: records at each point; a replay that runs dry ends the survey.
    public func run(readLine: () -> String?, say: (String) -> Void, write: (String) throws -> Void,
                    recorder: inout some SurveyRecorder) async throws -> [PointRecord] {
        var records: [PointRecord] = []
        while true {
            say("point? (name or x,y[,z]; empty line or q to finish)")
            guard let answer = readLine() else { break }
            let text = answer.trimmingCharacters(in: .whitespaces)
            if text.isEmpty || text == "q" { break }
            guard var point = points.resolve(text) else {
                say("not a known point or x,y[,z]: \(text)")
                continue
            }
            if point.z == nil { point.z = defaultHeightMeters }
            say("recording at \(point.label) for \(seconds) s")
            let readings = try await recorder.record(seconds: seconds)
            let record = try append(readings, at: point, write: write)
            say("\(point.label): \(record.lines) lines from \(record.anchorsHeard) anchors"
                + (record.skipped > 0 ? ", \(record.skipped) of unknown anchors skipped" : ""))
            records.append(record)
            if readings.isEmpty && recorder is any ExhaustibleRecorder {
                say("recording exhausted")
                break
            }
        }
        return records
    }

    /// Writes one survey line per reading, at the point.
    public func append(_ readings: [SurveyReading], at point: SurveyPoint,
                       write: (String) throws -> Void) throws -> PointRecord {
        var heard: Set<String> = []
        var lines = 0, skipped = 0
        for r in readings {
            if let anchors, !anchors.contains(r.anchor) {
                skipped += 1
                continue
            }
            let o = Observation(t: r.t, anchor: r.anchor, target: Observation.selfTarget, rssiDBm: r.rssiDBm,
                                txPowerDBm: r.txPowerDBm)
            let truth = TruthPoint(t: r.t, x: point.x, y: point.y, z: point.z ?? defaultHeightMeters)
            try write(ObservationWriter.line(o, truth: truth))
            heard.insert(r.anchor)
            lines += 1
        }
        return PointRecord(point: point, lines: lines, anchorsHeard: heard.count, skipped: skipped)
    }
}
