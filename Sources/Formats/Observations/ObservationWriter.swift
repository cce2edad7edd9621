import BlueDotCore
import Positioning

/// Writes observation, survey and truth lines in the datasets' layout, deterministically.
///
/// Observation keys: t, anchor, target, rssi, txPower? (t 3 decimals, RSSI and power 2); survey lines add
/// `"truth": {"x", "y", "z"?}` and truth lines are `{"t", "target", "x", "y", "z"?}` (positions 3 decimals).
public enum ObservationWriter {
    /// One observation line (survey line when `truth` is given), without its newline.
    public static func line(_ o: Observation, truth: TruthPoint? = nil) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        append(o, truth: truth, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends one observation (or survey) line, without its newline, as UTF-8.
    public static func append(_ o: Observation, truth: TruthPoint? = nil, to out: inout [UInt8]) {
        JSONText.append("{\"t\": ", to: &out)
        JSONText.appendFixed(o.t, decimals: 3, to: &out)
        JSONText.append(", \"anchor\": ", to: &out)
        JSONText.appendQuoted(o.anchor, to: &out)
        JSONText.append(", \"target\": ", to: &out)
        JSONText.appendQuoted(o.target, to: &out)
        JSONText.append(", \"rssi\": ", to: &out)
        JSONText.appendFixed(o.rssiDBm, decimals: 2, to: &out)
        if let p = o.txPowerDBm {
            JSONText.append(", \"txPower\": ", to: &out)
            JSONText.appendFixed(p, decimals: 2, to: &out)
        }
        if let truth {
            JSONText.append(", \"truth\": {", to: &out)
            appendCoordinates(truth, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
    }

    /// One truth line, without its newline.
    public static func truthLine(_ p: TruthPoint) -> String {
        var out: [UInt8] = []
        JSONText.append("{\"t\": ", to: &out)
        JSONText.appendFixed(p.t, decimals: 3, to: &out)
        JSONText.append(", \"target\": ", to: &out)
        JSONText.appendQuoted(p.target, to: &out)
        JSONText.append(", ", to: &out)
        appendCoordinates(p, to: &out)
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// `"x": .., "y": .., "z": ..` with 3 decimals (z omitted when absent).
    private static func appendCoordinates(_ p: TruthPoint, to out: inout [UInt8]) {
        JSONText.append("\"x\": ", to: &out)
        JSONText.appendFixed(p.x, decimals: 3, to: &out)
        JSONText.append(", \"y\": ", to: &out)
        JSONText.appendFixed(p.y, decimals: 3, to: &out)
        if let z = p.z {
            JSONText.append(", \"z\": ", to: &out)
            JSONText.appendFixed(z, decimals: 3, to: &out)
        }
    }
}
