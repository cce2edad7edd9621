import Formats
import JSON
import Positioning

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
        /// The samples fitted, file by file in the order given (what `HeldOutCalibration` splits by); empty when
        /// the samples were handed to `fit` already read.
        public var surveys: [(file: String, samples: [CalibrationSample])] = []
        /// Accepted survey lines that carried no truth position (not fitted).
        public var withoutTruth: Int
        /// Each anchor's place-dependent bias around the fitted models (`ResidualField`), nil when not asked
        /// for; an engine uses it through `EngineConfiguration.residualField` (the default, docs/positioning.md).
        public var residualField: ResidualField?
        /// How strongly the surveyed carriers' bodies shaded the anchors behind them (`BodyShadowEstimator`),
        /// nil when the survey cannot tell (too few moments with enough anchors).
        public var bodyShadow: BodyShadowEstimator.Estimate?

        /// Hands what the survey taught to an engine configuration: the target's height, the residual field
        /// and the body-shadow sigma (the configuration's own stays when the survey cannot tell).
        /// Every replay of a calibrated venue goes through here, so they all use the survey the same way.
        public func configure(_ configuration: inout EngineConfiguration) {
            configuration.targetHeightMeters = result.targetHeightMeters
            configuration.residualField = residualField
            if let bodyShadow { configuration.bodyShadowSigmaDB = bodyShadow.sigmaDB }
        }
    }

    /// Reads every survey line that carries a truth position and fits them together.
    ///
    /// Lines without `truth` are counted in `withoutTruth`, not fitted. The residuals around the fitted models
    /// are also mapped (`ResidualField.fit` on the calibrated venue, with the given parameters; nil: no field);
    /// a caller hands `Outcome.residualField` to `EngineConfiguration.residualField`.
    public static func calibrate(venue: Venue, surveys: [String], strict: Bool = false,
                                 calibrator: PathLossCalibrator = PathLossCalibrator(),
                                 field: ResidualField.Parameters? = ResidualField.Parameters())
        throws(JSONLinesError) -> Outcome {
        let read = try readSurveys(surveys, strict: strict, knownAnchors: Set(venue.anchors.map(\.id)))
        var outcome = fit(venue: venue, samples: read.files.flatMap(\.samples), calibrator: calibrator, field: field)
        outcome.reports = read.reports
        outcome.withoutTruth = read.withoutTruth
        outcome.surveys = read.files
        return outcome
    }

    /// Fits samples already read (`readSamples`): what `calibrate` does after reading, with no read reports.
    /// The calibrated venue has no radius calibration (`Venue.radius`), even when `venue` had one.
    public static func fit(venue: Venue, samples: [CalibrationSample],
                           calibrator: PathLossCalibrator = PathLossCalibrator(),
                           field: ResidualField.Parameters? = ResidualField.Parameters()) -> Outcome {
        let result = calibrator.fit(samples, venue: venue)
        var calibrated = result.applied(to: venue)
        // A radius calibration belongs to the models it was measured with; new models need a new one
        // (`HeldOutCalibration`).
        calibrated.radius = RadiusCalibrations()
        let residualField = field.map { ResidualField.fit(samples, venue: calibrated, parameters: $0) }
        return Outcome(venue: calibrated, result: result, reports: [], withoutTruth: 0, residualField: residualField,
                       bodyShadow: BodyShadowEstimator().estimate(samples, venue: calibrated))
    }

    /// Reads the survey lines that carry a truth position as calibration samples, file by file.
    ///
    /// Lines without `truth` are counted, not returned; `knownAnchors` (when given) keeps only the venue's
    /// anchors, counting the rest in each file's report.
    public static func readSamples(surveys: [String], strict: Bool = false, knownAnchors: Set<String>? = nil)
        throws(JSONLinesError) -> (samples: [CalibrationSample], reports: [ReadReport], withoutTruth: Int) {
        let read = try readSurveys(surveys, strict: strict, knownAnchors: knownAnchors)
        return (read.files.flatMap(\.samples), read.reports, read.withoutTruth)
    }

    /// `readSamples`, keeping each file's samples apart (what `HeldOutCalibration` splits by).
    public static func readSurveys(_ surveys: [String], strict: Bool = false, knownAnchors: Set<String>? = nil)
        throws(JSONLinesError)
        -> (files: [(file: String, samples: [CalibrationSample])], reports: [ReadReport], withoutTruth: Int) {
        var files: [(file: String, samples: [CalibrationSample])] = []
        var reports: [ReadReport] = []
        var withoutTruth = 0
        for path in surveys {
            var samples: [CalibrationSample] = []
            var reader = try ObservationReader(
                path: path, options: ObservationReader.Options(strict: strict, knownAnchors: knownAnchors))
            while let line = try reader.next() {
                guard let truth = line.truth else {
                    withoutTruth += 1
                    continue
                }
                samples.append(CalibrationSample(anchor: line.observation.anchor, rssiDBm: line.observation.rssiDBm,
                                                 x: truth.x, y: truth.y, z: truth.z ?? 0,
                                                 target: line.observation.target, t: line.observation.t))
            }
            files.append((path, samples))
            reports.append(reader.report)
        }
        return (files, reports, withoutTruth)
    }
}
