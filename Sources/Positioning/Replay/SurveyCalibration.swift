/// Reads survey files and fits the venue's path-loss model on them (`bluedot replay --calibrate`).
public enum SurveyCalibration {
    /// The calibrated venue, the fit behind it and the readers' counts per survey file.
    public struct Outcome: Sendable {
        /// The venue with the fitted site model and per-anchor models.
        public var venue: Venue
        /// The fit.
        public var result: PathLossCalibrator.Result
        /// One read report per survey file, in the order given.
        public var reports: [ReadReport]
        /// Accepted survey lines that carried no truth position (not fitted).
        public var withoutTruth: Int
    }

    /// Reads every survey line that carries a truth position and fits them together.
    ///
    /// Lines without `truth` are counted in `withoutTruth`, not fitted.
    public static func calibrate(venue: Venue, surveys: [String], strict: Bool = false,
                                 calibrator: PathLossCalibrator = PathLossCalibrator())
        throws(JSONLinesError) -> Outcome {
        var samples: [CalibrationSample] = []
        var reports: [ReadReport] = []
        var withoutTruth = 0
        let known = Set(venue.anchors.map(\.id))
        for path in surveys {
            var reader = try ObservationReader(
                path: path, options: ObservationReader.Options(strict: strict, knownAnchors: known))
            while let line = try reader.next() {
                guard let truth = line.truth else {
                    withoutTruth += 1
                    continue
                }
                samples.append(CalibrationSample(anchor: line.observation.anchor, rssiDBm: line.observation.rssiDBm,
                                                 x: truth.x, y: truth.y, z: truth.z ?? 0))
            }
            reports.append(reader.report)
        }
        let result = calibrator.fit(samples, venue: venue)
        return Outcome(venue: result.applied(to: venue), result: result, reports: reports, withoutTruth: withoutTruth)
    }
}
