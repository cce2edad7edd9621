import JSON
import Positioning

/// Parses one observation or survey line (`docs/formats.md`, "Observation stream") without building a tree.
///
/// Required: `t` (number), `anchor` (string), `rssi` (number). Optional: `target` (string, default `self`),
/// `txPower` (number), `address`, `gateway` (strings), `truth` (object with numbers `x`, `y` and optional `z`).
/// Unknown keys are skipped whatever their value; `null` counts as absent for optional fields.
enum ObservationLineParser {
    /// Parses a line; values may be non-finite (the reader counts those separately). Ids come from `table`.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, lineNumber: Int, table: inout StringTable)
        throws(JSONSyntaxError) -> ObservationLine
    {
        var s = JSONScanner(bytes)
        try s.beginObject()
        var t: Double?, anchor: String?, target: String?, rssi: Double?, txPower: Double?
        var gateway: String?, address: String?, truth: (x: Double, y: Double, z: Double?)?
        var first = true
        while let key = try s.nextKeyBytes(first: &first) {
            switch key {
            case "t": t = try s.number("t")
            case "anchor": anchor = try s.string("anchor", interning: &table)
            case "rssi": rssi = try s.number("rssi")
            case "target": target = s.null() ? nil : try s.string("target", interning: &table)
            case "txPower": txPower = s.null() ? nil : try s.number("txPower")
            case "gateway": gateway = s.null() ? nil : try s.string("gateway", interning: &table)
            case "address": address = s.null() ? nil : try s.string("address")
            case "truth": truth = s.null() ? nil : try position(&s, context: "truth")
            default: try s.skipValue()
            }
        }
        guard s.atEnd() else { throw s.error("unexpected text after the object") }
        guard let t else { throw JSONSyntaxError(offset: nil, message: "t: missing") }
        guard let anchor else { throw JSONSyntaxError(offset: nil, message: "anchor: missing") }
        guard let rssi else { throw JSONSyntaxError(offset: nil, message: "rssi: missing") }
        let observation = Observation(t: t, anchor: anchor, target: target ?? Observation.selfTarget, rssiDBm: rssi,
                                      txPowerDBm: txPower)
        let truthPoint = truth.map { TruthPoint(t: t, target: observation.target, x: $0.x, y: $0.y, z: $0.z) }
        return ObservationLine(observation: observation, truth: truthPoint, gateway: gateway, address: address,
                               lineNumber: lineNumber)
    }

    /// Reads `{"x": .., "y": .., "z": ..}` (z optional, other keys skipped).
    static func position(_ s: inout JSONScanner, context: String) throws(JSONSyntaxError)
        -> (x: Double, y: Double, z: Double?)
    {
        try s.beginObject(context)
        var x: Double?, y: Double?, z: Double?
        var first = true
        while let key = try s.nextKeyBytes(first: &first) {
            switch key {
            case "x": x = try s.number("\(context).x")
            case "y": y = try s.number("\(context).y")
            case "z": z = s.null() ? nil : try s.number("\(context).z")
            default: try s.skipValue()
            }
        }
        guard let x else { throw s.error("\(context).x: missing") }
        guard let y else { throw s.error("\(context).y: missing") }
        return (x, y, z)
    }

    /// Whether every number the line carries is finite.
    static func isFinite(_ line: ObservationLine) -> Bool {
        let o = line.observation
        guard o.t.isFinite, o.rssiDBm.isFinite, o.txPowerDBm?.isFinite ?? true else { return false }
        if let truth = line.truth {
            return truth.x.isFinite && truth.y.isFinite && (truth.z?.isFinite ?? true)
        }
        return true
    }
}
