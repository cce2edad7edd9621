import BlueDotCore
/// Turns a time-ordered stream of observations into fixes for every target, on a fixed grid per target.
///
/// Feed observations one at a time in time order with `ingest(_:into:)`; fixes come out as soon as they are
/// final. Each target's grid starts at its first observation, `t₀ + k · interval`, so a target appearing
/// mid-stream gets a fix at once, and keeps going (last known, growing radius) for `holdoverSeconds` after
/// its last observation; then its state is dropped. A fix at grid time g is emitted when the first
/// observation later than g arrives (or a clock passes g, `advance(to:)`, or at `finish`), so it uses exactly
/// the observations with t <= g:
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
        /// Observations with a non-finite time or RSSI (dropped).
        public var invalid = 0
        /// Fixes emitted.
        public var fixes = 0
        /// Observations of one anchor by another (receivers that hear each other): links for `PairCalibration`,
        /// never a target to locate.
        public var anchorLinks = 0

        /// All zero.
        public init() {}

        /// The counts of both (an engine's and those of the engines before it on the same inputs).
        public static func + (a: Counters, b: Counters) -> Counters {
            var sum = Counters()
            sum.unknownAnchors = a.unknownAnchors + b.unknownAnchors
            sum.late = a.late + b.late
            sum.outliers = a.outliers + b.outliers
            sum.invalid = a.invalid + b.invalid
            sum.fixes = a.fixes + b.fixes
            sum.anchorLinks = a.anchorLinks + b.anchorLinks
            return sum
        }
    }

    var context: EngineContext
    /// Learning the anchors' models, when the configuration asks (`EngineConfiguration.selfCalibration`).
    public private(set) var selfCalibration: SelfCalibration?
    /// The receivers' gains from the links between anchors, with self-calibration.
    public private(set) var pairCalibration: PairCalibration?
    /// Live trackers by slot; a freed slot is nil until reused.
    private var trackers: [TargetTracker?] = []
    private var freeSlots: [Int] = []
    private var slot: [String: Int] = [:]
    /// The room state of targets forgotten after their holdover, and the time each was last heard: a phone that
    /// wakes after a quiet spell takes up its room where it left it (`EngineConfiguration.roomMemorySeconds`), so
    /// the vague first fixes of a new track do not move it.
    private var roomMemory: [String: (room: RoomTracker, t: Double)] = [:]
    /// Every live tracker's next grid time.
    private var schedule = GridSchedule()
    /// What was skipped so far.
    public private(set) var counters = Counters()

    /// Creates an engine for a venue (calibrated or not) and a configuration.
    public init(venue: Venue, configuration: EngineConfiguration = .moving) {
        context = EngineContext(venue: venue, configuration: configuration)
        if var settings = configuration.selfCalibration {
            // The venue's own uncertainties are learning's priors, whether or not the radius carries them. No field
            // is learned where the engine applies none (static scans).
            if !configuration.usesResidualField { settings.field = nil }
            selfCalibration = SelfCalibration(settings: settings, models: context.anchors.models,
                                              uncertainties: venue.anchors.map(\.uncertainty), site: venue.model,
                                              bounds: venue.bounds, fields: context.anchors.fields)
            pairCalibration = PairCalibration()
        }
    }

    /// Sets the fix's room: from its own position, or with a room lag, from the position of that long ago smoothed
    /// with the fixes since (a last-known fix keeps the room either way). When the target falls silent, nothing
    /// more will come to wait for: the first last-known fix decides the room over the smoothed positions of the
    /// lag's last seconds, each at its time, so that they count (a walk into a room ending 2.5 s before a silence
    /// left the room behind without it: RoomTests).
    private mutating func assignRoom(_ fix: inout Location, slot s: Int) {
        let c = context.configuration
        guard !context.rooms.isEmpty else { return }
        if fix.lastKnown, let smoother = trackers[s]!.roomSmoother, !smoother.isEmpty {
            let rest = smoother.smoothed(after: trackers[s]!.roomDecidedAt)
            trackers[s]!.roomSmoother!.reset()
            trackers[s]!.roomDecidedAt = -.infinity
            if !rest.isEmpty {
                var probe = fix
                probe.lastKnown = false
                for past in rest {
                    (probe.timestamp, probe.x, probe.y) = (past.t, past.x, past.y)
                    context.rooms.assign(&probe, tracker: &trackers[s]!.room, rules: c.roomHysteresis,
                                         radius68: past.radius68, speed: trackers[s]!.filterSpeed)
                }
                fix.room = probe.room
                fix.roomProbability = probe.roomProbability
                return
            }
        }
        guard c.roomLagSeconds > 0, !fix.lastKnown else {
            context.rooms.assign(&fix, tracker: &trackers[s]!.room, rules: c.roomHysteresis,
                                 radius68: trackers[s]!.roomRadius, speed: trackers[s]!.filterSpeed)
            return
        }
        if trackers[s]!.roomSmoother == nil { trackers[s]!.roomSmoother = FixedLagSmoother(lagSeconds: c.roomLagSeconds) }
        trackers[s]!.roomSmoother!.add(t: fix.timestamp, x: fix.x, y: fix.y, radius68: trackers[s]!.roomRadius)
        guard let past = trackers[s]!.roomSmoother!.smoothed() else { return }
        // The position of `lag` ago at its own time: for the first `lag` seconds of a target the room tracker's
        // dwell does not run, so its vague first fixes are not committed to a room. (Stamped with the newest fix's
        // time instead, a simulated walk along a wall, RoomTrackerTests, flapped twice where it flapped once.)
        trackers[s]!.roomDecidedAt = past.t
        var probe = fix
        probe.timestamp = past.t
        probe.x = past.x
        probe.y = past.y
        context.rooms.assign(&probe, tracker: &trackers[s]!.room, rules: c.roomHysteresis, radius68: past.radius68,
                             speed: trackers[s]!.filterSpeed)
        fix.room = probe.room
        fix.roomProbability = probe.roomProbability
        fix.smoothed = SmoothedPosition(timestamp: past.t, x: past.x, y: past.y)
    }

    /// Hands a tick's record to the site evidence and to self-calibration, and self-calibration's models to the
    /// engine when they changed.
    private mutating func learn(from s: Int) {
        guard let r = trackers[s]!.record else { return }
        trackers[s]!.record = nil
        if context.siteEvidence != nil, let prior = context.anchors.sharedPrior {
            let table = context.anchors.uncertainties
            let shared = r.anchors.map { !table[$0].shared.isZero }
            context.siteEvidence!.add(r.measurements, shared: shared, x: r.x, y: r.y, prior: prior)
            context.evidentShared = context.siteEvidence!.error(prior: prior)?.uncertainty
        }
        guard selfCalibration != nil else { return }
        if selfCalibration!.add(anchors: r.anchors, measurements: r.measurements, x: r.x, y: r.y, t: r.t) {
            adoptLearnedModels()
        }
    }

    /// What the residuals at the fixes say of the site's model against the models in use (`SiteEvidence`); nil when
    /// no anchor's model carries a shared part (a surveyed venue), the radius does not use it, or before a fix.
    public var siteModelError: SiteModelError? {
        guard let prior = context.anchors.sharedPrior else { return nil }
        return context.siteEvidence?.error(prior: prior)
    }

    /// What self-calibration learned so far, nil when it is off.
    public var learnedCalibration: LearnedCalibration? {
        selfCalibration?.snapshot(anchorIDs: context.anchors.anchors.map(\.id))
    }

    /// Goes up whenever what `learnedCalibration` says may have changed (a refit, new models); nil when
    /// self-calibration is off.
    public var learnedRevision: Int? { selfCalibration?.revision }

    /// Takes up what an earlier run learned (kept in the gateway's state directory). Throws, changing nothing,
    /// when it does not fit this venue; does nothing when self-calibration is off.
    public mutating func restoreLearnedCalibration(_ learned: LearnedCalibration) throws(LearnedCalibration.Mismatch) {
        guard selfCalibration != nil else { return }
        try selfCalibration!.restore(learned, anchorIDs: context.anchors.anchors.map(\.id))
        _ = selfCalibration!.takeChange()
        adoptLearnedModels()
    }

    /// The engine's anchors take self-calibration's models and uncertainties.
    mutating func adoptLearnedModels() {
        guard let learned = selfCalibration else { return }
        if context.anchors.models != learned.models {
            // The residuals so far were against the old models.
            context.siteEvidence?.reset()
            context.evidentShared = nil
        }
        context.anchors.models = learned.models
        if context.configuration.usesResidualField { context.anchors.fields = learned.fields }
        if context.configuration.usesModelUncertainty { context.anchors.uncertainties = learned.uncertainties }
    }

    /// The configuration in use.
    public var configuration: EngineConfiguration { context.configuration }

    /// Number of targets currently tracked.
    public var liveTargets: Int { slot.count }

    /// Adds one observation, appending to `fixes` every fix (of any target) that became final.
    public mutating func ingest(_ o: Observation, into fixes: inout [Location]) {
        guard o.t.isFinite, o.rssiDBm.isFinite else {
            counters.invalid += 1
            return
        }
        emit(before: o.t, into: &fixes)
        guard let a = context.anchors.index[o.anchor] else {
            counters.unknownAnchors += 1
            return
        }
        if let tx = context.anchors.index[o.target] {
            // One anchor heard by another: a link at known places, not a target.
            counters.anchorLinks += 1
            if pairCalibration != nil,
               pairCalibration!.add(tx: tx, rx: a, rssiDBm: o.rssiDBm, t: o.t, anchors: context.anchors),
               let fit = pairCalibration!.fit {
                selfCalibration?.adoptPairGains(fit)
                adoptLearnedModels()
            }
            return
        }
        let interval = context.configuration.intervalSeconds
        if let s = slot[o.target] {
            // Fixes up to the tracker's previous grid point are out: an older observation cannot join them.
            if trackers[s]!.gridIndex > 0 && o.t <= trackers[s]!.nextGridTime(interval: interval) - interval {
                counters.late += 1
                return
            }
            if !trackers[s]!.add(anchor: a, t: o.t, rssiDBm: o.rssiDBm, configuration: context.configuration) {
                counters.outliers += 1
            }
        } else {
            var tracker = TargetTracker(target: o.target, firstTime: o.t)
            if let remembered = roomMemory.removeValue(forKey: o.target),
               o.t - remembered.t <= context.configuration.roomMemorySeconds {
                tracker.room = remembered.room
            }
            _ = tracker.add(anchor: a, t: o.t, rssiDBm: o.rssiDBm, configuration: context.configuration)
            let s = freeSlots.popLast() ?? trackers.count
            if s == trackers.count { trackers.append(tracker) } else { trackers[s] = tracker }
            slot[o.target] = s
            schedule.push(GridEntry(t: o.t, target: o.target, slot: s))
        }
    }

    /// Adds one observation and returns the fixes that became final.
    public mutating func ingest(_ o: Observation) -> [Location] {
        var fixes: [Location] = []
        ingest(o, into: &fixes)
        return fixes
    }

    /// Emits every grid point (of every target) strictly before `t`, exactly as an observation at `t` would.
    ///
    /// A live source, whose observations carry the clock's time, calls this from the clock (a little behind
    /// it, so that a packet stamped just before the call is not made late): while no anchor is heard, fixes
    /// keep coming on the grid, last known with a growing radius, until the holdover drops the target.
    /// An observation that arrives afterwards with a time at or before an emitted grid point of its target
    /// is late (counted, not used). A non-finite `t` emits nothing.
    public mutating func advance(to t: Double, into fixes: inout [Location]) {
        guard t.isFinite else { return }
        emit(before: t, into: &fixes)
    }

    /// Emits every grid point strictly before `t` and returns those fixes.
    public mutating func advance(to t: Double) -> [Location] {
        var fixes: [Location] = []
        advance(to: t, into: &fixes)
        return fixes
    }

    /// Ends the stream: emits every remaining grid point of every target through its holdover.
    public mutating func finish(into fixes: inout [Location]) {
        emit(before: .infinity, into: &fixes)
    }

    /// Ends the stream and returns the remaining fixes.
    public mutating func finish() -> [Location] {
        var fixes: [Location] = []
        finish(into: &fixes)
        return fixes
    }

    /// Emits, in time order (ties by target id), every grid point strictly before t.
    private mutating func emit(before t: Double, into fixes: inout [Location]) {
        let interval = context.configuration.intervalSeconds
        let holdover = context.configuration.holdoverSeconds
        while let next = schedule.first, next.t < t {
            _ = schedule.popFirst()
            let s = next.slot
            if next.t > trackers[s]!.lastObservationTime + holdover {
                // Lost for longer than the holdover: forget the target, but for its room.
                if !context.rooms.isEmpty, context.configuration.roomMemorySeconds > 0 {
                    let heard = trackers[s]!.lastObservationTime
                    roomMemory = roomMemory.filter { heard - $0.value.t <= context.configuration.roomMemorySeconds }
                    roomMemory[next.target] = (trackers[s]!.room, heard)
                }
                slot[next.target] = nil
                trackers[s] = nil
                freeSlots.append(s)
                continue
            }
            var fix = trackers[s]!.tick(at: next.t, context: context)
            learn(from: s)
            assignRoom(&fix, slot: s)
            fixes.append(fix)
            counters.fixes += 1
            schedule.push(GridEntry(t: trackers[s]!.nextGridTime(interval: interval), target: next.target,
                                             slot: s))
        }
    }
}
