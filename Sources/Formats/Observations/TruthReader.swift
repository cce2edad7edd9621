import JSON
import Positioning
import SystemIO

/// Reads truth JSONL (`{"t", "target", "x", "y", "z"}` per line; `target` defaults to `self`, `z` is optional).
///
/// Strict: the first malformed or non-finite line throws a `JSONLinesError` naming the file and line; blank lines
/// are skipped; unknown keys are ignored. Lines are returned in file order.
public enum TruthReader {
    /// Reads the truth file at `path`.
    public static func read(path: String) throws(JSONLinesError) -> [TruthPoint] {
        let source = try FileChunkSource(path: path)
        return try read(source: source, name: source.name)
    }

    /// Reads truth lines from any chunked source; `name` stands for the file in errors.
    public static func read(source: any ByteChunkSource, name: String) throws(JSONLinesError) -> [TruthPoint] {
        try JSONLines.readAll(source: source, name: name) { (s) throws(JSONSyntaxError) in try parse(&s) }
    }

    /// Parses one truth object.
    static func parse(_ s: inout JSONScanner) throws(JSONSyntaxError) -> TruthPoint {
        try s.beginObject()
        var t: Double?, target: String?, x: Double?, y: Double?, z: Double?
        var first = true
        while let key = try s.nextKeyBytes(first: &first) {
            switch key {
            case "t": t = try s.finiteNumber("t")
            case "target": target = s.null() ? nil : try s.string("target")
            case "x": x = try s.finiteNumber("x")
            case "y": y = try s.finiteNumber("y")
            case "z": z = s.null() ? nil : try s.finiteNumber("z")
            default: try s.skipValue()
            }
        }
        guard let t else { throw JSONSyntaxError(offset: nil, message: "t: missing") }
        guard let x else { throw JSONSyntaxError(offset: nil, message: "x: missing") }
        guard let y else { throw JSONSyntaxError(offset: nil, message: "y: missing") }
        return TruthPoint(t: t, target: target ?? Observation.selfTarget, x: x, y: y, z: z)
    }
}
