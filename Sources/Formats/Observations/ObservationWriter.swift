import BlueDotCore
import JSON
import Positioning

/// Writes observation, survey and truth lines in the datasets' layout, deterministically.
///
/// Observation keys: t, anchor, target, rssi, txPower? (t 3 decimals, RSSI and power 2); survey lines add
/// `"truth": {"x", "y", "z"?}` and truth lines are `{"t", "target", "x", "y", "z"?}` (positions 3 decimals).
public enum ObservationWriter {
    /// One observation line (survey line when `truth` is given), without its newline.
    public static func line(_ o: Observation, truth: TruthPoint? = nil) -> String {
        JSONText.text(estimatedBytes: 192) { write(o, truth: truth, to: &$0) }
    }

    /// Appends one observation (or survey) line, without its newline, as UTF-8.
    public static func append(_ o: Observation, truth: TruthPoint? = nil, to out: inout [UInt8]) {
        JSONText.append(to: &out, estimatedBytes: 192) { write(o, truth: truth, to: &$0) }
    }

    /// Writes one observation (or survey) line, without its newline.
    public static func write(_ o: Observation, truth: TruthPoint? = nil, to w: inout JSONWriter) {
        w.literal("{\"t\": ")
        w.fixed(o.t, decimals: 3)
        w.literal(", \"anchor\": ")
        w.quoted(o.anchor)
        w.literal(", \"target\": ")
        w.quoted(o.target)
        w.literal(", \"rssi\": ")
        w.fixed(o.rssiDBm, decimals: 2)
        if let p = o.txPowerDBm {
            w.literal(", \"txPower\": ")
            w.fixed(p, decimals: 2)
        }
        if let truth {
            w.literal(", \"truth\": {")
            writeCoordinates(truth, to: &w)
            w.byte(UInt8(ascii: "}"))
        }
        w.byte(UInt8(ascii: "}"))
    }

    /// One truth line, without its newline.
    public static func truthLine(_ p: TruthPoint) -> String {
        JSONText.text(estimatedBytes: 128) { w in
            w.literal("{\"t\": ")
            w.fixed(p.t, decimals: 3)
            w.literal(", \"target\": ")
            w.quoted(p.target)
            w.literal(", ")
            writeCoordinates(p, to: &w)
            w.byte(UInt8(ascii: "}"))
        }
    }

    /// `"x": .., "y": .., "z": ..` with 3 decimals (z omitted when absent).
    private static func writeCoordinates(_ p: TruthPoint, to w: inout JSONWriter) {
        w.literal("\"x\": ")
        w.fixed(p.x, decimals: 3)
        w.literal(", \"y\": ")
        w.fixed(p.y, decimals: 3)
        if let z = p.z {
            w.literal(", \"z\": ")
            w.fixed(z, decimals: 3)
        }
    }
}
