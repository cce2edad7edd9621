import BeaconLocation
import CalibrationKit
import Formats
import Foundation
import Positioning
import Testing

/// `fit` on the WUT robot survey (../shared/data/wut-flat-robot): skipped when the data folder is missing,
/// failed instead with BLUEDOT_REQUIRE_INTEGRATION=1.
@Suite(.enabled(if: CalibrationFixture.useSharedData, "shared data missing (BLUEDOT_REQUIRE_INTEGRATION=1 fails)"))
struct WUTSurveyFitTests {
    /// Every anchor gets thousands of samples, parameters inside the physical bounds, a residual sigma between
    /// 3 and 10 dB (printed: the figure the README reports); no anchor is dead or blocked.
    @Test func fitsTheRobotSurvey() throws {
        let folder = CalibrationFixture.dataDirectory + "/wut-flat-robot"
        let venue = try VenueLoader.load(path: folder + "/wut-flat.venue.json")
        var reader = try ObservationReader(path: folder + "/calibration.survey.jsonl",
                                           options: ObservationReader.Options())
        var samples: [CalibrationSample] = []
        while let line = try reader.next() {
            guard let t = line.truth else { continue }
            samples.append(CalibrationSample(anchor: line.observation.anchor, rssiDBm: line.observation.rssiDBm,
                                             x: t.x, y: t.y, z: t.z ?? 0))
        }
        let report = SurveyFitter().fit(samples, venue: venue).report
        print(report.text)
        #expect(report.anchors.count == 6)
        for a in report.anchors {
            #expect(a.samples > 3000)
            #expect((1.2...5).contains(a.pathLossExponent) && (-100 ... -20).contains(a.measuredPowerDBm))
            #expect((3...10).contains(a.residualSigmaDB), "\(a.id) sigma \(a.residualSigmaDB)")
            #expect(!a.flags.contains(.dead) && !a.flags.contains(.blocked), "\(a.id): \(a.reasons)")
        }
        #expect((5...9).contains(report.site.residualSigma))
    }
}

/// `bluedot-calibrate fit` calibrating the radius held out, through the real command on real surveys: the UJI
/// scans (static, folds by surveyed point) and the WUT robot (moving, folds by run).
@Suite(.enabled(if: CalibrationFixture.useSharedData, "shared data missing (BLUEDOT_REQUIRE_INTEGRATION=1 fails)"))
struct FitRadiusCommandTests {
    @Test func staticFitWritesAnHonestRadiusThatReplaysUse() async throws {
        let folder = try CalibrationFixture.scratch()
        let uji = CalibrationFixture.dataDirectory + "/uji-ble-db"
        let (status, log) = try SurveyCommandTests.run(
            ["fit", "--venue", uji + "/uji-geo.venue.json", "--survey", uji + "/geo-tx20.survey.jsonl", "--mode", "static",
             "--out", folder + "/uji.json", "--report", folder + "/report.json"], input: "")
        #expect(status == 0, "\(log)")
        let venue = try VenueLoader.load(path: folder + "/uji.json")
        let calibration = try #require(venue.radius.stationary)
        #expect(venue.radius.moving == nil)
        #expect(calibration.bands.allSatisfy { (0.5...2).contains($0.scale) && $0.scores >= 100 })
        let report = try JSONDecoder().decode(FitReport.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/report.json")))
        let radius = try #require(report.radius)
        #expect(radius.foldKind == "point" && radius.folds == 34 && radius.mode == "static")
        #expect((0.63...0.73).contains(radius.coverage68), "held-out coverage \(radius.coverage68)")
        #expect(radius.scored == radius.truthPoints)
        // A replay of the calibrated venue scales each raw radius by its band.
        var configuration = EngineConfiguration.stationary
        let replay = ReplayRun(venue: venue, configuration: configuration)
        let scaled = try await replay.run(path: uji + "/geo-tx20.observations.jsonl").fixes
        configuration.usesRadiusCalibration = false
        let raw = try await ReplayRun(venue: venue, configuration: configuration)
            .run(path: uji + "/geo-tx20.observations.jsonl").fixes
        #expect(scaled.count == raw.count && !raw.isEmpty)
        for (a, b) in zip(raw, scaled) {
            #expect(abs(b.horizontalAccuracyMeters - a.horizontalAccuracyMeters * calibration.scale(anchors: a.anchorCount)) < 1e-9)
        }
    }

    @Test func movingFitFoldsByRunAndCanBeSkipped() throws {
        let folder = try CalibrationFixture.scratch()
        let wut = CalibrationFixture.dataDirectory + "/wut-flat-robot"
        let (status, log) = try SurveyCommandTests.run(
            ["fit", "--venue", wut + "/wut-flat.venue.json", "--survey", wut + "/calibration.survey.jsonl",
             "--out", folder + "/wut.json", "--report", folder + "/report.json"], input: "")
        #expect(status == 0, "\(log)")
        let report = try JSONDecoder().decode(FitReport.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/report.json")))
        #expect(report.radius?.foldKind == "run" && report.radius?.folds == 4)
        #expect(try VenueLoader.load(path: folder + "/wut.json").radius.moving != nil)
        let (skipped, _) = try SurveyCommandTests.run(
            ["fit", "--venue", folder + "/wut.json", "--survey", wut + "/calibration.survey.jsonl",
             "--no-radius-calibration", "--out", folder + "/plain.json"], input: "")
        #expect(skipped == 0)
        // Refitting drops the radius that belonged to the old models.
        #expect(try VenueLoader.load(path: folder + "/plain.json").radius.isEmpty)
    }
}

/// `bluedot-calibrate learned` on what a replay of the WUT flat learned with no survey (`bluedot replay --learn`
/// through `ReplayRun`): the venue it writes carries the learned models with source `learned`, and locates better
/// than the venue as given; a file learned in another venue is refused.
@Suite(.enabled(if: CalibrationFixture.useSharedData, "shared data missing (BLUEDOT_REQUIRE_INTEGRATION=1 fails)"))
struct LearnedCommandTests {
    @Test func learnedModelsGoIntoTheVenue() async throws {
        let folder = try CalibrationFixture.scratch()
        let wut = CalibrationFixture.dataDirectory + "/wut-flat-robot"
        let venue = try VenueLoader.load(path: wut + "/wut-flat.venue.json")
        var configuration = EngineConfiguration.moving
        configuration.selfCalibration = SelfCalibration.Settings()
        let observations = wut + "/calibration.observations.jsonl"
        let (_, summary) = try await ReplayRun(venue: venue, configuration: configuration).run(path: observations)
        let learned = try #require(summary.learned)
        #expect(learned.counters.accepted >= 1)
        try LearnedCalibrationFile.json(learned, venue: venue.name)
            .write(toFile: folder + "/learned.json", atomically: true, encoding: .utf8)
        let (status, log) = try SurveyCommandTests.run(
            ["learned", "--venue", wut + "/wut-flat.venue.json", "--learned", folder + "/learned.json",
             "--out", folder + "/wut-learned.json"], input: "")
        #expect(status == 0, "\(log)")
        let written = try VenueLoader.load(path: folder + "/wut-learned.json")
        for (a, e) in zip(written.anchors, learned.anchors) {
            #expect(a.calibration?.source == .learned && a.measuredPowerDBm == e.measuredPowerDBm, "\(a.id)")
        }
        let truth = try TruthReader.read(path: wut + "/calibration.truth.jsonl")
        func median(_ v: Venue) async throws -> Double {
            let fixes = try await ReplayRun(venue: v, configuration: .moving).run(path: observations).fixes
            return Evaluator.evaluate(fixes: fixes, truth: truth).median ?? .infinity
        }
        let before = try await median(venue), after = try await median(written)
        #expect(after < 0.7 * before, "median \(after) m with the learned venue, \(before) m as given")
        // Another venue's file is refused, naming both.
        let (refused, message) = try SurveyCommandTests.run(
            ["learned", "--venue", CalibrationFixture.dataDirectory + "/boun-tetam-tracks/boun-tetam.venue.json",
             "--learned", folder + "/learned.json", "--out", folder + "/boun.json"], input: "")
        #expect(refused != 0 && message.contains("was learned in venue \"\(venue.name)\""), "\(message)")
    }
}
