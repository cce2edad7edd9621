import Foundation
import JSON
import Positioning
import SystemIO

/// The learned-calibration document (docs/formats.md, "Learned calibration"): what self-calibration learned, as the
/// gateway keeps it in its state directory (`learned-calibration.json`) and serves it at `/api/calibration`.
///
/// ```json
/// {"version": 1, "venue": "Lab", "phase": "learning", "records": 1378, "updates": 5, "rejected": 16, "undone": 0,
///  "site": {"level": -59.5, "exponent": 2.3, "levelSigma": 0.3, "exponentSigma": 0.05},
///  "anchors": [{"id": "a1", "measuredPower": -61.2, "pathLossExponent": 2.1, "levelSigma": 1.4,
///               "exponentSigma": 0.34, "sharesSite": true, "samples": 892, "confidence": 0.62}]}
/// ```
/// `level` is the RSSI at 4 m (`ModelUncertainty.referenceDistanceMeters`), `measuredPower` at 1 m.
public enum LearnedCalibrationFile {
    /// The document's version.
    public static let version = 1

    /// The document, on one line.
    public static func json(_ learned: LearnedCalibration, venue: String) -> String {
        var w = JSONObjectWriter()
        w.raw("version", "\(version)")
        w.string("venue", venue)
        w.string("phase", learned.phase.rawValue)
        w.raw("records", "\(learned.counters.records)")
        w.raw("updates", "\(learned.counters.accepted)")
        w.raw("rejected", "\(learned.counters.rejectedHeldOut)")
        w.raw("undone", "\(learned.counters.undone)")
        var site = JSONObjectWriter()
        site.raw("level", num(learned.site.levelDBm))
        site.raw("exponent", num(learned.site.exponent))
        site.raw("levelSigma", num(learned.site.uncertainty.levelSigmaDB))
        site.raw("exponentSigma", num(learned.site.uncertainty.exponentSigma))
        w.raw("site", site.finish())
        let anchors = learned.anchors.map { e -> String in
            var a = JSONObjectWriter()
            a.string("id", e.id)
            a.raw("measuredPower", num(e.measuredPowerDBm))
            a.raw("pathLossExponent", num(e.pathLossExponent))
            a.raw("levelSigma", num(e.uncertainty.levelSigmaDB))
            a.raw("exponentSigma", num(e.uncertainty.exponentSigma))
            a.raw("sharesSite", e.sharesSite ? "true" : "false")
            a.raw("samples", "\(e.samples)")
            a.raw("confidence", num(e.confidence))
            return a.finish()
        }
        w.raw("anchors", "[" + anchors.joined(separator: ",") + "]")
        return w.finish()
    }

    /// Reads the document at `path`; the error names the file and the field (or line and column) at fault.
    public static func load(path: String) throws(VenueError) -> (learned: LearnedCalibration, venue: String) {
        let file = URL(fileURLWithPath: path).lastPathComponent
        let data: [UInt8]
        do { data = try WholeFile.read(path) } catch {
            throw VenueError(file: file, path: "", message: "\(error)")
        }
        return try parse(data, file: file)
    }

    /// Parses the document; `file` names it in errors.
    public static func parse(_ utf8: [UInt8], file: String) throws(VenueError) -> (learned: LearnedCalibration, venue: String) {
        let document: JSONValue
        do {
            document = try JSONValue.parse(utf8)
        } catch {
            let (line, column) = VenueLoader.position(of: error.offset ?? 0, in: utf8)
            throw VenueError(file: file, path: "line \(line), column \(column)", message: error.message)
        }
        let root = JSONCursor(value: document, path: "", file: file)
        _ = try root.members()
        let v = try root.required("version")
        guard try v.integer() == version else { throw v.error("expected version \(version)") }
        let phaseCursor = try root.required("phase")
        guard let phase = SelfCalibration.Phase(rawValue: try phaseCursor.string()) else {
            throw phaseCursor.error("expected collecting, learning or frozen")
        }
        var counters = SelfCalibration.Counters()
        counters.records = try count(root, "records")
        counters.accepted = try count(root, "updates")
        counters.rejectedHeldOut = try count(root, "rejected")
        counters.undone = try count(root, "undone")
        // Every refit ends accepted or rejected.
        counters.refits = counters.accepted + counters.rejectedHeldOut
        let s = try root.required("site")
        _ = try s.members()
        let site = LearnedCalibration.Site(
            levelDBm: try s.required("level").number(in: -150...20),
            exponent: try s.required("exponent").number(in: 0.1...10),
            uncertainty: try uncertainty(s))
        var anchors: [LearnedCalibration.Entry] = []
        var seen = Set<String>()
        for c in try root.required("anchors").elements() {
            _ = try c.members()
            let id = try c.required("id").string(nonEmpty: true)
            guard seen.insert(id).inserted else { throw c.error("anchor \"\(id)\" appears twice") }
            anchors.append(LearnedCalibration.Entry(
                id: id, measuredPowerDBm: try c.required("measuredPower").number(in: -150...20),
                pathLossExponent: try c.required("pathLossExponent").number(in: 0.1...10),
                uncertainty: try uncertainty(c),
                sharesSite: try c.required("sharesSite").bool(), samples: try count(c, "samples"),
                confidence: try c.required("confidence").number(in: 0...1)))
        }
        return (LearnedCalibration(site: site, anchors: anchors, phase: phase, counters: counters),
                try root.required("venue").string())
    }

    private static func uncertainty(_ c: JSONCursor) throws(VenueError) -> ModelUncertainty {
        ModelUncertainty(levelSigmaDB: try c.required("levelSigma").number(in: 0...100),
                         exponentSigma: try c.required("exponentSigma").number(in: 0...10))
    }

    private static func count(_ c: JSONCursor, _ key: String) throws(VenueError) -> Int {
        let k = try c.required(key)
        let n = try k.integer()
        guard n >= 0 else { throw k.error("expected 0 or more, got \(n)") }
        return n
    }

    private static func num(_ x: Double) -> String { JSONText.shortest(x) }
}
