import Foundation
import Positioning

extension AccuracyPlanner {
    /// A proposed new beacon and what it gains.
    public struct Suggestion: Sendable, Hashable, Codable {
        /// 1-based order of the proposal.
        public var rank: Int
        /// Position, metres.
        public var x: Double, y: Double, z: Double
        /// p90 of the predicted error before and after adding it (with the earlier suggestions), metres.
        public var p90Before: Double, p90After: Double
        /// Median before and after, metres.
        public var medianBefore: Double, medianAfter: Double
        /// Share of grid points hearing ≥ 3 anchors after adding it.
        public var coverageAfter: Double
    }

    /// What removing an existing anchor would cost.
    public struct AnchorCost: Sendable, Hashable, Codable {
        /// The anchor id.
        public var id: String
        /// p90 without it minus p90 with all anchors, metres (larger: the anchor matters more).
        public var p90Increase: Double
        /// Median increase, metres.
        public var medianIncrease: Double
        /// Drop of the ≥ 3 anchor coverage share.
        public var coverageLoss: Double
    }

    /// Greedily proposes `count` new beacons at candidate positions (the grid's cell centres, every
    /// `candidateStride`-th in each direction) at height `z` with the given model: each step keeps the
    /// candidate that most lowers the p90 of the map (ties, e.g. while more than 10 % of the area has no bound
    /// and the p90 sits at the cap: the mean of the capped bounds).
    ///
    /// Fisher information adds over anchors, so each grid point keeps its running sum and a candidate costs one
    /// pass over the grid.
    public func suggest(count: Int, anchors: [PlanAnchor], area b: Venue.Bounds, z: Double, model: PathLossModel,
                        candidateStride: Int = 1) -> [Suggestion] {
        let grid = gridPoints(b)
        var sums = grid.points.map { p in
            anchors.reduce(FisherInformation()) { $0 + information($1, x: p.x, y: p.y) }
        }
        let cap = capMeters(b)
        // Candidates: the grid points whose column and row are multiples of the stride.
        let stride = Double(max(candidateStride, 1))
        let candidates = grid.points.filter { p in
            let i = ((p.x - b.minX) / cellMeters - 0.5).rounded(), j = ((p.y - b.minY) / cellMeters - 0.5).rounded()
            return i.truncatingRemainder(dividingBy: stride) == 0 && j.truncatingRemainder(dividingBy: stride) == 0
        }
        var result: [Suggestion] = []
        for rank in 1...max(count, 1) where rank <= count {
            let before = statistics(sums, cap: cap)
            var best: (c: PlanAnchor, stats: (p90: Double, median: Double, mean: Double, coverage: Double))?
            for c in candidates {
                let a = PlanAnchor(id: "candidate-\(rank)", x: c.x, y: c.y, z: z, model: model)
                var updated = sums
                for k in updated.indices {
                    updated[k] = updated[k] + information(a, x: grid.points[k].x, y: grid.points[k].y)
                }
                let s = statistics(updated, cap: cap)
                if best == nil || s.p90 < best!.stats.p90 - 1e-9
                    || (abs(s.p90 - best!.stats.p90) <= 1e-9 && s.mean < best!.stats.mean - 1e-12) {
                    best = (a, s)
                }
            }
            guard let best else { break }
            for k in sums.indices {
                sums[k] = sums[k] + information(best.c, x: grid.points[k].x, y: grid.points[k].y)
            }
            result.append(Suggestion(rank: rank, x: best.c.x, y: best.c.y, z: z, p90Before: before.p90,
                                     p90After: best.stats.p90, medianBefore: before.median,
                                     medianAfter: best.stats.median, coverageAfter: best.stats.coverage))
        }
        return result
    }

    /// Each anchor's cost: the map without it against the full map, most costly first.
    public func rank(anchors: [PlanAnchor], area b: Venue.Bounds) -> [AnchorCost] {
        let full = map(anchors: anchors, area: b)
        let p90 = full.percentile(90), med = full.percentile(50), cov = full.share(withAtLeast: 3)
        return anchors.indices.map { i in
            var rest = anchors
            rest.remove(at: i)
            let m = map(anchors: rest, area: b)
            return AnchorCost(id: anchors[i].id, p90Increase: m.percentile(90) - p90,
                              medianIncrease: m.percentile(50) - med, coverageLoss: cov - m.share(withAtLeast: 3))
        }
        .sorted { ($0.p90Increase, $0.medianIncrease, $1.id) > ($1.p90Increase, $1.medianIncrease, $0.id) }
    }

    /// p90, median (capped bounds, nearest rank), mean and the ≥ 3 anchor share of a grid of information sums.
    private func statistics(_ sums: [FisherInformation], cap: Double) -> (p90: Double, median: Double, mean: Double,
                                                                          coverage: Double) {
        let values = sums.map { min($0.crlbMeters ?? cap, cap) }.sorted()
        func rank(_ p: Double) -> Double {
            values[min(max(Int((p / 100 * Double(values.count)).rounded(.up)), 1), values.count) - 1]
        }
        let covered = sums.filter { $0.anchors >= 3 }.count
        let mean = values.reduce(0, +) / Double(max(values.count, 1))
        return (rank(90), rank(50), mean, Double(covered) / Double(max(values.count, 1)))
    }
}
