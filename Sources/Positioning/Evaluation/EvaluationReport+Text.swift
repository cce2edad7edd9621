import BlueDotCore
import JSON

extension EvaluationReport {
    /// Human-readable summary, e.g.
    /// `protocol moving: 747 truth points, 740 scored, 7 missing` then one line of figures in metres.
    public var text: String {
        var s = "protocol \(scoring.name): \(total) truth points, \(scored) scored, \(missing) missing\n"
        guard let median, let p90, let mean, let rmse, let max, let coverage68 else {
            return s + "no scored points\n"
        }
        s += "error (m): median \(JSONText.fixed(median, decimals: 3)), p90 \(JSONText.fixed(p90, decimals: 3)), "
        s += "mean \(JSONText.fixed(mean, decimals: 3)), rmse \(JSONText.fixed(rmse, decimals: 3)), "
        s += "max \(JSONText.fixed(max, decimals: 3))\n"
        s += "coverage68: \(JSONText.fixed(coverage68 * 100, decimals: 1))% of scored fixes within horizontalAccuracy\n"
        return s
    }

    /// One JSON object with fixed key order and decimals (errors 4, coverage 4); absent figures are `null`.
    ///
    /// Keys: protocol, total, scored, missing, median, p90, mean, rmse, max, coverage68.
    public var json: String {
        func number(_ value: Double?) -> String { value.map { JSONText.fixed($0, decimals: 4) } ?? "null" }
        var s = "{\"protocol\": \(JSONText.quoted(scoring.name)), \"total\": \(total), \"scored\": \(scored), "
        s += "\"missing\": \(missing), \"median\": \(number(median)), \"p90\": \(number(p90)), "
        s += "\"mean\": \(number(mean)), \"rmse\": \(number(rmse)), \"max\": \(number(max)), "
        s += "\"coverage68\": \(number(coverage68))}"
        return s
    }

    /// The line `bluedot evaluate --intervals` adds to `text`: the 90% intervals of median, p90 and coverage68.
    public func intervalsText(_ i: BlockBootstrap.ReportIntervals, blockSeconds: Double) -> String {
        func range(_ r: BlockBootstrap.Interval?, scale: Double = 1, decimals: Int = 3) -> String {
            guard let r else { return "n/a" }
            return JSONText.fixed(r.low * scale, decimals: decimals) + "-"
                + JSONText.fixed(r.high * scale, decimals: decimals)
        }
        let blocks = scoring == .stationary ? "a surveyed point" : "\(JSONText.fixed(blockSeconds, decimals: 1)) s"
        return "90% intervals (block bootstrap, blocks of \(blocks)): median \(range(i.median)), "
            + "p90 \(range(i.p90)), coverage68 \(range(i.coverage68, scale: 100, decimals: 1))%\n"
    }

    /// `json` with the intervals added as `[low, high]` pairs (null where there are none) under `medianInterval`,
    /// `p90Interval` and `coverage68Interval`, after the other keys.
    public func json(intervals i: BlockBootstrap.ReportIntervals) -> String {
        func pair(_ r: BlockBootstrap.Interval?) -> String {
            guard let r else { return "null" }
            return "[\(JSONText.fixed(r.low, decimals: 4)), \(JSONText.fixed(r.high, decimals: 4))]"
        }
        return String(json.dropLast()) + ", \"medianInterval\": \(pair(i.median)), \"p90Interval\": \(pair(i.p90)), "
            + "\"coverage68Interval\": \(pair(i.coverage68))}"
    }
}

