/// Order statistics used by the evaluation.
public enum Percentile {
    /// The p-th percentile (0 ... 100) of ascending `sorted` values by linear interpolation between closest ranks,
    /// NumPy's default (`method="linear"`, Hyndman & Fan 1996 definition 7): with n values and h = (n - 1) p / 100,
    /// the result is `v[floor h] + (h - floor h) (v[floor h + 1] - v[floor h])`. So the median of an even count is
    /// the mean of the middle two, p0 is the minimum and p100 the maximum. Nil for no values.
    public static func of(sorted values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let h = Double(values.count - 1) * min(max(p, 0), 100) / 100
        let lower = Int(h.rounded(.down))
        let upper = min(lower + 1, values.count - 1)
        return values[lower] + (h - Double(lower)) * (values[upper] - values[lower])
    }
}
