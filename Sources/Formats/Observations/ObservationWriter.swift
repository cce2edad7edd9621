import BlueDotCore
import Positioning

/// Writes observation, survey and truth lines in the datasets' layout, deterministically.
///
/// Observation keys: t, anchor, target, rssi, txPower? (t 3 decimals, RSSI and power 2); survey lines add
/// `"truth": {"x", "y", "z"?}` and truth lines are `{"t", "target", "x", "y", "z"?}` (positions 3 decimals).
public enum ObservationWriter {
    /// One observation line (survey line when `truth` is given), without its newline.
    public static func line(_ o: Observation, truth: TruthPoint? = nil) -> String {
        var s = "{\"t\": " + JSONText.fixed(o.t, decimals: 3) + ", \"anchor\": " + JSONText.quoted(o.anchor)
        s += ", \"target\": " + JSONText.quoted(o.target) + ", \"rssi\": " + JSONText.fixed(o.rssiDBm, decimals: 2)
        if let p = o.txPowerDBm { s += ", \"txPower\": " + JSONText.fixed(p, decimals: 2) }
        if let truth { s += ", \"truth\": {" + coordinates(truth) + "}" }
        return s + "}"
    }

    /// One truth line, without its newline.
    public static func truthLine(_ p: TruthPoint) -> String {
        "{\"t\": " + JSONText.fixed(p.t, decimals: 3) + ", \"target\": " + JSONText.quoted(p.target) + ", "
            + coordinates(p) + "}"
    }

    /// `"x": .., "y": .., "z": ..` with 3 decimals (z omitted when absent).
    private static func coordinates(_ p: TruthPoint) -> String {
        var s = "\"x\": " + JSONText.fixed(p.x, decimals: 3) + ", \"y\": " + JSONText.fixed(p.y, decimals: 3)
        if let z = p.z { s += ", \"z\": " + JSONText.fixed(z, decimals: 3) }
        return s
    }
}
