import FoundationEssentials
import Glibc

/// The floor a target is on, from the anchors it hears, with hysteresis so that it does not flicker.
///
/// Each tick every floor scores the received power (mW) of its anchors heard, `Σ 10^(rssi/10)`, a soft vote
/// dominated by the nearest anchors. The current floor changes only when another floor's share of the total
/// exceeds the current floor's by `margin` for `confirmations` consecutive ticks.
public struct FloorEstimator: Sendable {
    /// The floor currently reported, nil before any anchor was heard.
    public private(set) var floor: Int?
    /// Share by which a challenger must lead, in [0, 1).
    public var margin: Double
    /// Consecutive leading ticks needed to switch.
    public var confirmations: Int
    private var challenger: Int?
    private var streak = 0

    /// Creates an estimator.
    public init(margin: Double = 0.2, confirmations: Int = 3) {
        self.margin = margin
        self.confirmations = confirmations
    }

    /// Feeds one tick's heard anchors as (floor, RSSI dBm) pairs; returns the floor to report.
    @discardableResult
    public mutating func update(_ heard: [(floor: Int, rssiDBm: Double)]) -> Int? {
        guard !heard.isEmpty else { return floor }
        let top = heard.map(\.rssiDBm).max() ?? 0
        var score: [Int: Double] = [:]
        var total = 0.0
        for h in heard {
            let w = pow(10, (h.rssiDBm - top) / 10)
            score[h.floor, default: 0] += w
            total += w
        }
        let best = score.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }!
        guard let current = floor else {
            floor = best.key
            return floor
        }
        let lead = (best.value - score[current, default: 0]) / total
        if best.key != current && lead > margin {
            streak = challenger == best.key ? streak + 1 : 1
            challenger = best.key
            if streak >= confirmations {
                floor = best.key
                challenger = nil
                streak = 0
            }
        } else {
            challenger = nil
            streak = 0
        }
        return floor
    }
}
