/// Turns a time-ordered stream of observations into fixes for every target, on a fixed grid per target.
///
/// Feed observations one at a time in time order with `ingest(_:into:)`; fixes come out as soon as they are
/// final. Each target's grid starts at its first observation, `t₀ + k · interval`, so a target appearing
/// mid-stream gets a fix at once, and keeps going (last known, growing radius) for `holdoverSeconds` after
/// its last observation; then its state is dropped. A fix at grid time g is emitted when the first
/// observation later than g arrives (or at `finish`), so it uses exactly the observations with t <= g:
/// causal, and deterministic for a given input. Memory: one tracker per live target, each bounded by the
/// venue's anchors.
public struct PositioningEngine: Sendable {
    /// Counts of what the engine skipped.
    public struct Counters: Sendable, Hashable {
        /// Observations of anchors the venue does not have.
        public var unknownAnchors = 0
        /// Observations older than a fix already emitted for their target (dropped).
        public var late = 0
        /// Observations rejected as outliers by the per-anchor filters.
        public var outliers = 0
        /// Fixes emitted.
        public var fixes = 0
    }

    let context: EngineContext
    private var trackers: [TargetTracker] = []
    private var slot: [String: Int] = [:]
    /// The earliest pending grid time over all trackers (infinity when none).
    private var nextDue = Double.infinity
    /// What was skipped so far.
    public private(set) var counters = Counters()

    /// Creates an engine for a venue (calibrated or not) and a configuration.
    public init(venue: Venue, configuration: EngineConfiguration = .moving) {
        context = EngineContext(venue: venue, configuration: configuration)
    }

    /// The configuration in use.
    public var configuration: EngineConfiguration { context.configuration }

    /// Number of targets currently tracked.
    public var liveTargets: Int { trackers.count }

    /// Adds one observation, appending to `fixes` every fix (of any target) that became final.
    public mutating func ingest(_ o: Observation, into fixes: inout [LocationFix]) {
        emit(before: o.t, into: &fixes)
        guard let a = context.anchors.index[o.anchor] else {
            counters.unknownAnchors += 1
            return
        }
        let interval = context.configuration.intervalSeconds
        if let s = slot[o.target] {
            // Fixes up to the tracker's previous grid point are out: an older observation cannot join them.
            if trackers[s].gridIndex > 0 && o.t <= trackers[s].nextGridTime(interval: interval) - interval {
                counters.late += 1
                return
            }
            let before = trackers[s].filters[a]?.rejected ?? 0
            trackers[s].add(anchor: a, t: o.t, rssiDBm: o.rssiDBm, configuration: context.configuration)
            counters.outliers += (trackers[s].filters[a]?.rejected ?? 0) - before
        } else {
            var tracker = TargetTracker(target: o.target, firstTime: o.t, anchorCount: context.anchors.count)
            tracker.add(anchor: a, t: o.t, rssiDBm: o.rssiDBm, configuration: context.configuration)
            slot[o.target] = trackers.count
            trackers.append(tracker)
            nextDue = min(nextDue, o.t)
        }
    }

    /// Adds one observation and returns the fixes that became final.
    public mutating func ingest(_ o: Observation) -> [LocationFix] {
        var fixes: [LocationFix] = []
        ingest(o, into: &fixes)
        return fixes
    }

    /// Ends the stream: emits every remaining grid point of every target through its holdover.
    public mutating func finish(into fixes: inout [LocationFix]) {
        emit(before: .infinity, into: &fixes)
    }

    /// Ends the stream and returns the remaining fixes.
    public mutating func finish() -> [LocationFix] {
        var fixes: [LocationFix] = []
        finish(into: &fixes)
        return fixes
    }

    /// Emits, in time order (ties by target id), every grid point strictly before t.
    private mutating func emit(before t: Double, into fixes: inout [LocationFix]) {
        guard nextDue < t else { return }
        let interval = context.configuration.intervalSeconds
        let holdover = context.configuration.holdoverSeconds
        while true {
            var best = -1
            var bestTime = Double.infinity
            for (i, tracker) in trackers.enumerated() {
                let g = tracker.nextGridTime(interval: interval)
                if g < bestTime || (g == bestTime && best >= 0 && tracker.target < trackers[best].target) {
                    best = i
                    bestTime = g
                }
            }
            nextDue = bestTime
            guard best >= 0, bestTime < t else { return }
            if bestTime > trackers[best].lastObservationTime + holdover {
                // Lost for longer than the holdover: forget the target.
                slot[trackers[best].target] = nil
                let last = trackers.count - 1
                if best != last {
                    trackers.swapAt(best, last)
                    slot[trackers[best].target] = best
                }
                trackers.removeLast()
                continue
            }
            fixes.append(trackers[best].tick(at: bestTime, context: context))
            counters.fixes += 1
        }
    }
}
