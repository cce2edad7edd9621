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
