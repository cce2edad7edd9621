import BlueDotCore
import Positioning

/// The spine's one positioning step: observations from every input go into one `PositioningEngine` (a fix per
/// target on its time grid, causal) and come out as `Location`s placed on the earth when the venue has an origin.
///
/// Each location carries the time its newest report arrived (`Location.reportedAt`), for the report-to-fix
/// latency. Thread-safe: inputs deliver from their own tasks; the engine is behind a lock.
public final class PositioningPipeline: Sendable {
    private struct State {
        var engine: PositioningEngine
        var venue: Venue
        var origin: GeographicOrigin?
        var lastArrival: [String: Double] = [:]
        /// The counts of the engines `use(venue:)` retired.
        var retired = PositioningEngine.Counters()

        init(venue: Venue, configuration: EngineConfiguration) {
            engine = PositioningEngine(venue: venue, configuration: configuration)
            self.venue = venue
            origin = venue.origin.map(GeographicOrigin.init)
        }
    }

    /// The venue the engine positions in; `use(venue:)` replaces it.
    public var venue: Venue { state.withLock { $0.venue } }
    /// The engine's configuration.
    public let configuration: EngineConfiguration
    private let state: LockedValue<State>

    /// Creates a pipeline over `venue` with the engine configuration given.
    public init(venue: Venue, configuration: EngineConfiguration) {
        self.configuration = configuration
        state = LockedValue(State(venue: venue, configuration: configuration))
    }

    /// Positions in `venue` from the next observation on: a new engine on it, which starts every target afresh.
    /// What self-calibration learned is taken over for the anchors the new venue still has where it still applies
    /// (`restoreLearnedCalibration`); the counters go on from where they were.
    public func use(venue: Venue) {
        state.withLock { s in
            let learned = s.engine.learnedCalibration
            var next = State(venue: venue, configuration: configuration)
            if let learned { try? next.engine.restoreLearnedCalibration(learned) }
            next.retired = s.retired + s.engine.counters
            next.lastArrival = s.lastArrival
            s = next
        }
    }

    /// Takes a batch of observations, in time order, under one lock; returns the locations they complete.
    public func ingest(_ batch: ObservationBatch) -> [Location] {
        state.withLock { s in
            var located: [Location] = []
            for arrival in batch {
                let o = arrival.observation
                let unknownBefore = s.engine.counters.unknownAnchors
                let start = located.count
                s.engine.ingest(o, into: &located)
                complete(&located[start...], state: s)
                if s.engine.counters.unknownAnchors == unknownBefore { s.lastArrival[o.target] = arrival.arrivedAt }
            }
            return located
        }
    }

    /// Releases every grid point before observation time `t` (`PositioningEngine.advance(to:)`): targets nobody
    /// hears keep getting last-known fixes until the engine's holdover ends.
    public func advance(to t: Double) -> [Location] {
        state.withLock { s in
            var located = s.engine.advance(to: t)
            complete(&located[...], state: s)
            return located
        }
    }

    /// Flushes every target's pending fixes (an input that ended: nothing more will come).
    public func finish() -> [Location] {
        state.withLock { s in
            var located = s.engine.finish()
            complete(&located[...], state: s)
            return located
        }
    }

    /// The engine's fixes made whole: placed on the earth by the venue's origin, with the arrival of the newest
    /// report behind each.
    private func complete(_ fixes: inout ArraySlice<Location>, state s: State) {
        for i in fixes.indices {
            if let origin = s.origin { fixes[i].place(on: origin) }
            fixes[i].reportedAt = s.lastArrival[fixes[i].targetID]
        }
    }

    /// Number of targets the engine is tracking.
    public var liveTargets: Int { state.withLock { $0.engine.liveTargets } }

    /// What the residuals say of the site's model (`PositioningEngine.siteModelError`).
    public var siteModelError: SiteModelError? { state.withLock { $0.engine.siteModelError } }

    /// What the engine's self-calibration learned so far; nil when it is off.
    public var learnedCalibration: LearnedCalibration? { state.withLock { $0.engine.learnedCalibration } }

    /// `PositioningEngine.learnedRevision`: read it to know whether `learnedCalibration` is worth taking again.
    public var learnedRevision: Int? { state.withLock { $0.engine.learnedRevision } }

    /// Takes up what an earlier run learned (`PositioningEngine.restoreLearnedCalibration`).
    public func restoreLearnedCalibration(_ learned: LearnedCalibration) throws(LearnedCalibration.Mismatch) {
        try state.withLock { (s) throws(LearnedCalibration.Mismatch) in try s.engine.restoreLearnedCalibration(learned) }
    }

    /// The engine's counters.
    public var counters: PositioningEngine.Counters { state.withLock { $0.retired + $0.engine.counters } }
}
