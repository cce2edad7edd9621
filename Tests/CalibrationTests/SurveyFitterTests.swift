import CalibrationKit
import Foundation
import Positioning
import Testing

@Suite struct SurveyFitterTests {
    /// Simulated survey of a room whose six anchors each have their own model, 3 dB shadowing, 2,400 samples
    /// per anchor (48 points × 10 s × 5/s): each anchor's P₀ within ±1 dB, n within ±0.1, residual sigma within ±0.5 dB of 3 dB, and no
    /// flags.
    @Test func recoversKnownParameters() {
        let truth = CalibrationFixture.room()
        var listed = truth
        for i in listed.anchors.indices {
            listed.anchors[i].measuredPowerDBm = nil
            listed.anchors[i].pathLossExponent = nil
            listed.anchors[i].shadowingSigmaDB = nil
        }
        let samples = CalibrationFixture.survey(of: truth, seed: 11)
        let (calibrated, report) = SurveyFitter().fit(samples, venue: listed)
        for (expected, got) in zip(truth.anchors, calibrated.anchors) {
            #expect(abs((got.measuredPowerDBm ?? 0) - expected.measuredPowerDBm!) <= 1, "\(got.id) P0")
            #expect(abs((got.pathLossExponent ?? 0) - expected.pathLossExponent!) <= 0.1, "\(got.id) n")
        }
        for a in report.anchors {
            #expect(abs(a.residualSigmaDB - 3) <= 0.5, "\(a.id) sigma \(a.residualSigmaDB)")
            #expect(a.flags.isEmpty, "\(a.id) flagged \(a.flags): \(a.reasons)")
            #expect(a.samples > 2000)
        }
    }

    /// An anchor with few samples is pulled toward the site fit: with 6 samples (one per point of a coarse
    /// grid) its calibrated exponent is closer to the site's than its own free fit is (shrinkage 30 ≫ 6).
    @Test func fewSamplesShrinkTowardTheSite() {
        let venue = CalibrationFixture.room()
        var samples = CalibrationFixture.survey(of: venue, seed: 12).filter { $0.anchor != "a4" }
        var seen: Set<[Double]> = []
        let a4 = CalibrationFixture.survey(of: venue, step: 5, seconds: 1, seed: 13)
            .filter { $0.anchor == "a4" && seen.insert([$0.x, $0.y]).inserted }
        #expect(a4.count == 6)
        samples += a4
        var fitter = SurveyFitter()
        fitter.thresholds.minimumSamples = 3
        let report = fitter.fit(samples, venue: venue).report
        let d = report.anchors.first { $0.id == "a4" }!
        #expect(d.samples == 6)
        #expect(abs(d.pathLossExponent - report.site.pathLossExponent)
                < abs((d.freePathLossExponent ?? 0) - report.site.pathLossExponent) + 1e-9)
        #expect(abs(d.pathLossExponent - report.site.pathLossExponent) < 0.5)
    }

    /// Flags on a simulated site: a1 is 4 m from where the venue says (moved), a3 is 12 dB weaker than its
    /// neighbours behind an obstruction (blocked), a5 is never heard (dead); the other anchors carry no flag.
    @Test func flagsMovedDeadAndBlockedAnchors() {
        let same = Array(repeating: PathLossModel(measuredPowerDBm: -59, pathLossExponent: 2, shadowingSigmaDB: 3),
                         count: 6)
        var actual = CalibrationFixture.room(models: same)
        actual.anchors[0].x += 4  // a1 really is at (4.5, 0.5)
        actual.anchors[2].measuredPowerDBm = -71  // a3 blocked
        actual.anchors.remove(at: 4)  // a5 dead
        let listed = CalibrationFixture.room(models: same)
        let samples = CalibrationFixture.survey(of: actual, seed: 21)
        let report = SurveyFitter().fit(samples, venue: listed).report
        func flags(_ id: String) -> [AnchorFlag] { report.anchors.first { $0.id == id }!.flags }
        #expect(flags("a1").contains(.moved), "\(report.text)")
        #expect(flags("a3") == [.blocked], "\(report.text)")
        #expect(flags("a5") == [.dead])
        for id in ["a2", "a4", "a6"] { #expect(flags(id).isEmpty, "\(id): \(report.text)") }
        let a1 = report.anchors.first { $0.id == "a1" }!
        #expect(abs((a1.bestX ?? 0) - 4.5) <= 0.75 && abs((a1.bestY ?? 0) - 0.5) <= 0.75, "best \(a1.bestX!),\(a1.bestY!)")
    }

    /// The report's JSON decodes back to the same report.
    @Test func reportRoundTripsThroughJSON() throws {
        let venue = CalibrationFixture.room()
        let report = SurveyFitter().fit(CalibrationFixture.survey(of: venue, step: 3, seed: 5), venue: venue).report
        let decoded = try JSONDecoder().decode(FitReport.self, from: Data(try report.json().utf8))
        #expect(decoded == report)
    }
}
