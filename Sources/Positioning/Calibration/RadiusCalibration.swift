/// A site's calibration of the accuracy radius: the factor on the engine's own 68% radius that makes it hold
/// the stated share of true positions on data the calibration did not see.
///
/// It is split-conformal calibration with a multiplicative score. On held-out fixes (each scored against truth by
/// an engine calibrated without the fold it came from, `HeldOutCalibration` in CalibrationRuns), the score of a fix is
/// `error / horizontalAccuracy`. With n scores of a band sorted, the scale is the ⌈(n + 1) p⌉-th smallest: a new
/// fix exchangeable with those gets `error <= scale × horizontalAccuracy` with probability at least p, and at most
/// p + 1 / (n + 1) when scores do not tie. Fixes whose targets hear more anchors have radii that fit differently,
/// so the scores are banded by the fix's `anchors`, where each band has enough of them (`minimumScores`).
///
/// One calibration per target model (moving, static): the venue file carries both when the site was surveyed for
/// both (`radius` in docs/formats.md), and the engine picks by `EngineConfiguration.radiusMode`.
public struct RadiusCalibration: Sendable, Hashable {
    /// The target model a calibration is for.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Walkers, robots: the moving configuration.
        case moving
        /// Scans of a device that stays put: the stationary configuration.
        case `static`
    }

    /// The scale for fixes of at least `minimumAnchors` anchors (up to the next band's).
    public struct Band: Sendable, Hashable {
        /// The fewest anchors a fix of this band has (the first band starts at 0).
        public var minimumAnchors: Int
        /// The factor on the engine's radius.
        public var scale: Double
        /// How many held-out scores it was computed from.
        public var scores: Int

        /// Creates a band.
        public init(minimumAnchors: Int, scale: Double, scores: Int) {
            self.minimumAnchors = minimumAnchors
            self.scale = scale
            self.scores = scores
        }
    }

    /// The probability the radius is calibrated to (0.68, `AccuracyRadius.probability`).
    public var probability: Double
    /// The bands, by `minimumAnchors` ascending, the first at 0.
    public var bands: [Band]

    /// Creates a calibration; bands are sorted and the first is made to start at 0 anchors.
    public init(probability: Double = AccuracyRadius.probability, bands: [Band]) {
        self.probability = probability
        var sorted = bands.sorted { $0.minimumAnchors < $1.minimumAnchors }
        if !sorted.isEmpty { sorted[0].minimumAnchors = 0 }
        self.bands = sorted
    }

    /// The scale for a fix from `anchors` anchors (1 without bands).
    public func scale(anchors: Int) -> Double {
        var s = 1.0
        for band in bands where band.minimumAnchors <= anchors { s = band.scale }
        return s
    }

    /// Band edges tried, in anchors: fixes from 0-2, 3-4, 5-7 and 8 or more anchors.
    public static let defaultEdges = [0, 3, 5, 8]

    /// The conformal quantile of `scores` at probability p: the ⌈(n + 1) p⌉-th smallest, or the largest when that
    /// rank exceeds n (the guarantee then needs more scores than there are). Nil for no scores.
    public static func conformalQuantile(_ scores: [Double], probability p: Double) -> Double? {
        guard !scores.isEmpty else { return nil }
        let sorted = scores.sorted()
        let rank = Int((Double(sorted.count + 1) * p).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// Calibrates from held-out scores (`error / horizontalAccuracy` with the fix's anchor count).
    ///
    /// Scores are grouped at `edges`; a group with fewer than `minimumScores` is merged into its neighbour below
    /// (the lowest into the one above), so every band's quantile rests on enough fixes. Nil for no finite scores.
    public static func conformal(scores: [(anchors: Int, score: Double)], probability: Double = AccuracyRadius.probability,
                                 edges: [Int] = defaultEdges, minimumScores: Int = 100) -> RadiusCalibration? {
        let finite = scores.filter { $0.score.isFinite && $0.score >= 0 }
        guard !finite.isEmpty else { return nil }
        let starts = Array(Set([0] + edges.filter { $0 > 0 })).sorted()
        var groups: [(start: Int, scores: [Double])] = starts.map { start in
            (start, finite.filter { bandStart($0.anchors, starts: starts) == start }.map(\.score))
        }
        groups.removeAll { $0.scores.isEmpty }
        // Merge thin groups into the one below (the first into the one above) until all are thick or one is left.
        while groups.count > 1, let thin = groups.indices.min(by: { groups[$0].scores.count < groups[$1].scores.count }),
              groups[thin].scores.count < minimumScores {
            let into = thin == 0 ? 1 : thin - 1
            groups[into].scores += groups[thin].scores
            groups[into].start = min(groups[into].start, groups[thin].start)
            groups.remove(at: thin)
        }
        let bands = groups.compactMap { g in
            conformalQuantile(g.scores, probability: probability).map {
                Band(minimumAnchors: g.start, scale: $0, scores: g.scores.count)
            }
        }
        return RadiusCalibration(probability: probability, bands: bands)
    }

    /// The start of the band of `anchors` among ascending `starts`.
    private static func bandStart(_ anchors: Int, starts: [Int]) -> Int {
        starts.last { $0 <= anchors } ?? 0
    }
}

/// A venue's radius calibrations, one per target model (`Venue.radius`).
public struct RadiusCalibrations: Sendable, Hashable {
    /// For moving targets, when calibrated.
    public var moving: RadiusCalibration?
    /// For static scans, when calibrated.
    public var stationary: RadiusCalibration?

    /// Creates the pair.
    public init(moving: RadiusCalibration? = nil, stationary: RadiusCalibration? = nil) {
        self.moving = moving
        self.stationary = stationary
    }

    /// The calibration of a mode.
    public subscript(mode: RadiusCalibration.Mode) -> RadiusCalibration? {
        get { mode == .moving ? moving : stationary }
        set { if mode == .moving { moving = newValue } else { stationary = newValue } }
    }

    /// True when neither mode is calibrated.
    public var isEmpty: Bool { moving == nil && stationary == nil }
}
