import Foundation
import Testing
@testable import Positioning

@Suite struct CalibrationTests {
    /// A survey simulated from known per-anchor models: every anchor's fit comes back within tolerance.
    func survey(venue: Venue, truth: [String: PathLossModel], samplesPerAnchor: Int, sigma: Double,
                outlierShare: Double = 0, seed: UInt64) -> [CalibrationSample] {
        var rng = SeededGenerator(seed: seed)
        var out: [CalibrationSample] = []
        for a in venue.anchors {
            for _ in 0..<samplesPerAnchor {
                let x = Double.random(in: 0...20, using: &rng), y = Double.random(in: 0...20, using: &rng)
                let d = ((x - a.x) * (x - a.x) + (y - a.y) * (y - a.y) + (a.z - 1.2) * (a.z - 1.2)).squareRoot()
                var rssi = truth[a.id]!.rssiDBm(atDistanceMeters: max(d, 0.5)) + sigma * rng.gaussian()
                if Double.random(in: 0..<1, using: &rng) < outlierShare { rssi -= 25 }
                out.append(CalibrationSample(anchor: a.id, rssiDBm: rssi, x: x, y: y, z: 1.2))
            }
        }
        return out
    }

    @Test func recoversPerAnchorModelsDespiteOutliers() {
        var rng = SeededGenerator(seed: 60)
        let venue = testVenue(anchorCount: 6)
        var truth: [String: PathLossModel] = [:]
        for a in venue.anchors {
            truth[a.id] = PathLossModel(measuredPowerDBm: Double.random(in: -66 ... -54, using: &rng),
                                        pathLossExponent: Double.random(in: 1.6...3, using: &rng))
        }
        let samples = survey(venue: venue, truth: truth, samplesPerAnchor: 2000, sigma: 4, outlierShare: 0.05,
                             seed: 61)
        let result = PathLossCalibrator().fit(samples, venue: venue)
        for a in venue.anchors {
            let fit = result.anchors[a.id]!.model, want = truth[a.id]!
            // 2000 samples at 4 dB: P0 within 1 dB, n within 0.1, sigma within 15% (outliers excluded by Huber).
            #expect(abs(fit.measuredPowerDBm - want.measuredPowerDBm) < 1, "\(a.id) P0 \(fit.measuredPowerDBm)")
            #expect(abs(fit.pathLossExponent - want.pathLossExponent) < 0.1, "\(a.id) n \(fit.pathLossExponent)")
            #expect(abs(fit.shadowingSigmaDB - 4) < 0.6, "\(a.id) sigma \(fit.shadowingSigmaDB)")
        }
        #expect(abs((result.targetHeightMeters ?? 0) - 1.2) < 1e-9)
    }

    @Test func anchorWithFewSamplesIsPulledToTheSiteFit() {
        let venue = testVenue(anchorCount: 6)
        let site = PathLossModel(measuredPowerDBm: -60, pathLossExponent: 2.2)
        var truth: [String: PathLossModel] = [:]
        for a in venue.anchors { truth[a.id] = site }
        var samples = survey(venue: venue, truth: truth, samplesPerAnchor: 1000, sigma: 4, seed: 62)
        // Anchor a0 keeps 3 samples, each 8 dB above the site's line.
        samples.removeAll { $0.anchor == "a0" }
        for var s in survey(venue: venue, truth: truth, samplesPerAnchor: 3, sigma: 0, seed: 63)
        where s.anchor == "a0" {
            s.rssiDBm += 8
            samples.append(s)
        }
        let result = PathLossCalibrator().fit(samples, venue: venue)
        let a0 = result.anchors["a0"]!.model
        // 3 samples against a prior worth 30: the fit moves less than a quarter of the way (2 dB of 8).
        let shift = a0.rssiDBm(atDistanceMeters: 5) - site.rssiDBm(atDistanceMeters: 5)
        #expect(shift > 0 && shift < 2, "shift \(shift)")
        #expect(abs(result.site.model.pathLossExponent - 2.2) < 0.1)
    }

    @Test func physicalBoundsClampAbsurdFits() {
        let venue = testVenue(anchorCount: 3)
        var samples: [CalibrationSample] = []
        // RSSI rising with distance: a fit would give a negative exponent.
        for a in venue.anchors {
            for k in 1...200 {
                let d = Double(k) * 0.1
                samples.append(CalibrationSample(anchor: a.id, rssiDBm: -80 + 10 * log10(d), x: a.x + d, y: a.y, z: a.z))
            }
        }
        let result = PathLossCalibrator().fit(samples, venue: venue)
        for fit in result.anchors.values {
            #expect(fit.clamped)
            #expect(fit.model.pathLossExponent == 1.2)
        }
    }

    @Test func appliedVenueCarriesTheFits() {
        let venue = testVenue(anchorCount: 4)
        var truth: [String: PathLossModel] = [:]
        for a in venue.anchors { truth[a.id] = PathLossModel(measuredPowerDBm: -55, pathLossExponent: 2.5) }
        let samples = survey(venue: venue, truth: truth, samplesPerAnchor: 500, sigma: 2, seed: 64)
            + [CalibrationSample(anchor: "stranger", rssiDBm: -50, x: 0, y: 0, z: 0)]
        let result = PathLossCalibrator().fit(samples, venue: venue)
        let applied = result.applied(to: venue)
        #expect(result.unknownAnchorSamples == 1)
        #expect(applied.anchors.allSatisfy { $0.measuredPowerDBm != nil && $0.shadowingSigmaDB != nil })
        #expect(abs(applied.model.measuredPowerDBm + 55) < 0.5)
    }
}
