import BeaconLocation
import BlueDotCore
import CalibrationKit
import Positioning

/// The set-up page's quick calibration: the user stands at a place of the plan, holds still, and what the anchors
/// hear of the target there for a few seconds becomes a survey point (`PUT /api/setup/survey`); from three points
/// on, the anchors' path-loss models are fitted from them as `bluedot-calibrate fit` fits a survey
/// (`SurveyFitter`: Huber IRLS, each anchor shrunk toward the site's fit, flags for anchors that look dead, moved or
/// blocked), and the page applies the fit to the venue it saves.
///
/// The target is the gateway itself in self mode, and in tag mode the device the user carries. Samples come from
/// the observations the inputs deliver (the runner's tap), at the target's height `targetHeightMeters`. Points
/// live in memory until the gateway stops: a survey is minutes of one visit.
final class SurveyCollector: Sendable {
    /// One recorded point.
    struct Point: Sendable {
        var x: Double, y: Double
        var floor: Int
        var target: String
        var samples: [CalibrationSample]

        var anchors: Int { Set(samples.map(\.anchor)).count }
    }

    /// Why a point was not recorded.
    enum Refusal: Error, Sendable {
        /// Another point is being recorded.
        case busy
        /// Tag mode without a target.
        case noTarget
    }

    private struct Recording {
        var point: Point
        var until: Double
    }

    private struct State {
        var points: [Point] = []
        var recording: Recording?
    }

    /// The height a surveyed target is held at, metres (as `bluedot-calibrate survey` assumes by default).
    static let targetHeightMeters = 1.2
    /// The fewest points `fit` takes.
    static let minimumPoints = 3
    private let mode: SightingMapper.Mode
    private let clock: any BlueDotClock
    private let state = LockedValue(State())

    init(mode: SightingMapper.Mode, clock: any BlueDotClock) {
        self.mode = mode
        self.clock = clock
    }

    /// The points recorded so far, and whether one is being recorded.
    var points: (done: [Point], recording: Bool) { state.withLock { ($0.points, $0.recording != nil) } }

    /// Takes one batch of observations (the runner's tap): the recorded target's go into the point being recorded.
    func take(_ batch: ObservationBatch) {
        state.withLock { s in
            guard var recording = s.recording else { return }
            let target = recording.point.target
            for arrival in batch where arrival.observation.target == target {
                let o = arrival.observation
                recording.point.samples.append(CalibrationSample(
                    anchor: o.anchor, rssiDBm: o.rssiDBm, x: recording.point.x, y: recording.point.y,
                    z: Self.targetHeightMeters, target: target, t: o.t))
            }
            s.recording = recording
        }
    }

    /// Records a point at (x, y) on `floor` for `seconds` of the clock, then returns it. `target`: tag mode's
    /// device (self mode records the gateway itself).
    func record(x: Double, y: Double, floor: Int, seconds: Double, target: String?) async throws(Refusal) -> Point {
        let who: String
        switch mode {
        case .self: who = Observation.selfTarget
        case .tag:
            guard let target, !target.isEmpty else { throw .noTarget }
            who = target
        }
        let until = clock.now() + seconds
        let started = state.withLock { s -> Bool in
            guard s.recording == nil else { return false }
            s.recording = Recording(point: Point(x: x, y: y, floor: floor, target: who, samples: []), until: until)
            return true
        }
        guard started else { throw .busy }
        try? await clock.sleep(until: until)
        return state.withLock { s in
            let point = s.recording?.point ?? Point(x: x, y: y, floor: floor, target: who, samples: [])
            s.recording = nil
            s.points.append(point)
            return point
        }
    }

    /// The anchors' models fitted from every point against `venue`: the calibrated venue and the fit's report; nil
    /// with fewer than `minimumPoints` points.
    func fit(venue: Venue) -> (venue: Venue, report: FitReport, points: Int, samples: Int)? {
        let points = state.withLock { $0.points }
        guard points.count >= Self.minimumPoints else { return nil }
        let samples = points.flatMap(\.samples)
        let (calibrated, report) = SurveyFitter().fit(samples, venue: venue)
        return (calibrated, report, points.count, samples.count)
    }
}
