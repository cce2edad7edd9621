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
}
