@testable import CalibrationRuns
import Foundation
import Testing
@testable import Positioning
@testable import Formats

/// Scans of a carried device: each anchor's RSSI gains `a cos φ + b sin φ` (φ the bearing from the device to
/// the anchor, (a, b) drawn per scan) on top of the model and its noise.
private func shadedScan(at x: Double, _ y: Double, venue: Venue, shadowSigmaDB: Double, noiseSigmaDB: Double,
                        using rng: inout SeededGenerator) -> [RSSIMeasurement] {
    let a = shadowSigmaDB * rng.gaussian(), b = shadowSigmaDB * rng.gaussian()
    var scan = simulatedMeasurements(at: x, y, venue: venue, noiseSigmaDB: noiseSigmaDB, using: &rng)
    for i in scan.indices {
        let dx = scan[i].anchorX - x, dy = scan[i].anchorY - y, d = hypot(dx, dy)
        scan[i].rssiDBm += a * dx / d + b * dy / d
    }
    return scan
}

@Suite struct BodyShadowTests {
    /// A venue of 16 anchors round a 20 m room.
    let venue = testVenue(anchorCount: 16)

    /// With the term in the data, the grid posterior that integrates it out (at the true sigma, with the noise
    /// sigma it leaves) has the smaller mean error over 120 scans and a 68% radius that covers 60-80% of them,
    /// where the plain posterior covers less (seed 5; σ_b 4 dB, noise 2 dB).
    @Test func integratingTheTermOutLowersTheErrorAndKeepsTheRadiusHonest() {
        var rng = SeededGenerator(seed: 5)
        var plain = GridPosterior(bounds: venue.bounds!, cellMeters: 0.5, loss: .squared)
        plain.usesSpatialMedian = true
        var shaded = plain
        shaded.bodyShadowSigmaDB = 4
        var errorPlain = 0.0, errorShaded = 0.0, coveredPlain = 0, coveredShaded = 0
        for _ in 0..<120 {
            let x = Double.random(in: 4...16, using: &rng), y = Double.random(in: 4...16, using: &rng)
            var scan = shadedScan(at: x, y, venue: venue, shadowSigmaDB: 4, noiseSigmaDB: 2, using: &rng)
            // The plain posterior's sigma is the whole residual (√(2² + 4²)), the shaded one's the noise.
            for i in scan.indices { scan[i].sigmaDB = (4.0 + 16).squareRoot() }
            let p = plain.estimate(scan)!
            for i in scan.indices { scan[i].sigmaDB = 2 }
            let s = shaded.estimate(scan)!
            let ep = hypot(p.x - x, p.y - y), es = hypot(s.x - x, s.y - y)
            errorPlain += ep / 120
            errorShaded += es / 120
            if ep <= AccuracyRadius.radius68(p.covariance) { coveredPlain += 1 }
            if es <= AccuracyRadius.radius68(s.covariance) { coveredShaded += 1 }
        }
        #expect(errorShaded < 0.9 * errorPlain, "shaded \(errorShaded) m, plain \(errorPlain) m")
        #expect((72...96).contains(coveredShaded), "shaded covers \(coveredShaded) of 120")
        #expect(coveredPlain < coveredShaded, "plain covers \(coveredPlain), shaded \(coveredShaded)")
    }

    /// A vanishing prior is the plain posterior: σ_b = 10⁻⁴ dB moves the estimate by under 1 mm.
    @Test func aVanishingTermIsThePlainPosterior() {
        var rng = SeededGenerator(seed: 9)
        let plain = GridPosterior(bounds: venue.bounds!, cellMeters: 0.25)
        var shaded = plain
        shaded.bodyShadowSigmaDB = 1e-4
        for _ in 0..<5 {
            let scan = simulatedMeasurements(at: Double.random(in: 3...17, using: &rng),
                                             Double.random(in: 3...17, using: &rng), venue: venue,
                                             noiseSigmaDB: 3, using: &rng)
            let p = plain.estimate(scan)!, s = shaded.estimate(scan)!
            #expect(abs(p.x - s.x) < 1e-3 && abs(p.y - s.y) < 1e-3)
        }
    }

    /// A common offset alone is the scalar profile it always was: every anchor's RSSI raised by 6 dB (a louder
    /// device) leaves the estimate with a 10 dB offset prior within 0.3 m of the unshifted scan's.
    @Test func aCommonOffsetAbsorbsADeviceGain() {
        var rng = SeededGenerator(seed: 4)
        var grid = GridPosterior(bounds: venue.bounds!, cellMeters: 0.25)
        grid.commonOffsetSigmaDB = 10
        let scan = simulatedMeasurements(at: 7, 12, venue: venue, noiseSigmaDB: 1, using: &rng)
        let louder = scan.map { m -> RSSIMeasurement in
            var m = m
            m.rssiDBm += 6
            return m
        }
        let a = grid.estimate(scan)!, b = grid.estimate(louder)!
        #expect(hypot(a.x - b.x, a.y - b.y) < 0.3 && hypot(a.x - 7, a.y - 12) < 1)
    }

    /// Survey samples of scans at known points: per scan one heading term (σ_b), per packet noise.
    private func survey(shadowSigmaDB: Double, scans: Int, seed: UInt64) -> [CalibrationSample] {
        var rng = SeededGenerator(seed: seed)
        var samples: [CalibrationSample] = []
        for k in 0..<scans {
            let x = Double.random(in: 3...17, using: &rng), y = Double.random(in: 3...17, using: &rng)
            let scan = shadedScan(at: x, y, venue: venue, shadowSigmaDB: shadowSigmaDB, noiseSigmaDB: 4, using: &rng)
            for (a, m) in zip(venue.anchors, scan) {
                samples.append(CalibrationSample(anchor: a.id, rssiDBm: m.rssiDBm, x: x, y: y, z: 1.2,
                                                 target: "scan-\(k)", t: 100 * Double(k) + 0.01 * Double(samples.count % 50)))
            }
        }
        return samples
    }

    /// The method of moments recovers the simulated σ_b (3 dB within 0.4 over 300 scans), finds next to
    /// nothing when there is none (under 0.8 dB), and the noise within a scan (4 dB within 0.3).
    @Test func estimatorRecoversTheSimulatedSigma() throws {
        let estimator = BodyShadowEstimator()
        let with = try #require(estimator.estimate(survey(shadowSigmaDB: 3, scans: 300, seed: 1), venue: venue))
        #expect(abs(with.sigmaDB - 3) < 0.4 && with.moments > 280, "\(with)")
        #expect(abs(with.withinSigmaDB - 4) < 0.3, "\(with)")
        let without = try #require(estimator.estimate(survey(shadowSigmaDB: 0, scans: 300, seed: 2), venue: venue))
        #expect(without.sigmaDB < 0.8, "\(without)")
    }

    /// No estimate without grouping (no targets), from too few scans, or from scans of too few anchors.
    @Test func estimatorDeclinesWhatItCannotMeasure() {
        let estimator = BodyShadowEstimator()
        let samples = survey(shadowSigmaDB: 3, scans: 100, seed: 3)
        #expect(estimator.estimate(samples.map { s in
            var s = s
            s.target = ""
            return s
        }, venue: venue) == nil)
        #expect(estimator.estimate(Array(samples.prefix(16 * 10)), venue: venue) == nil)
        #expect(estimator.estimate(samples.filter { ["a0", "a1", "a2", "a3", "a4", "a5", "a6"].contains($0.anchor) },
                                   venue: venue) == nil)
    }

    /// `SurveyCalibration` hands the estimate to an engine configuration, and only static scans use it. With no
    /// survey, or one that cannot tell, static scans keep the default.
    @Test func calibrationConfiguresStaticScansOnly() {
        var stationary = EngineConfiguration.stationary, moving = EngineConfiguration.moving
        #expect(stationary.usesBodyShadow && !moving.usesBodyShadow)
        #expect(stationary.bodyShadowSigmaDB == UncalibratedPrior.bodyShadowSigmaDB)
        let silent = SurveyCalibration.Outcome(
            venue: venue, result: PathLossCalibrator().fit(survey(shadowSigmaDB: 3, scans: 60, seed: 4), venue: venue),
            reports: [], withoutTruth: 0, residualField: nil, bodyShadow: nil)
        var kept = stationary
        silent.configure(&kept)
        #expect(kept.bodyShadowSigmaDB == UncalibratedPrior.bodyShadowSigmaDB)
        let outcome = SurveyCalibration.Outcome(
            venue: venue, result: PathLossCalibrator().fit(survey(shadowSigmaDB: 3, scans: 60, seed: 4), venue: venue),
            reports: [], withoutTruth: 0, residualField: nil,
            bodyShadow: BodyShadowEstimator().estimate(survey(shadowSigmaDB: 3, scans: 60, seed: 4), venue: venue))
        outcome.configure(&stationary)
        outcome.configure(&moving)
        #expect(stationary.bodyShadowSigmaDB != nil && stationary.bodyShadowSigmaDB == outcome.bodyShadow?.sigmaDB)
    }
}
