import Foundation
import Testing
@testable import Positioning

@Suite struct PathLossTests {
    @Test func modelRoundTripsRSSIAndDistance() {
        var rng = SeededGenerator(seed: 1)
        for _ in 0..<500 {
            let model = PathLossModel(measuredPowerDBm: Double.random(in: -80 ... -40, using: &rng),
                                      pathLossExponent: Double.random(in: 1.2...5, using: &rng))
            let d = Double.random(in: 0.05...80, using: &rng)
            let back = model.distanceMeters(forRSSI: model.rssiDBm(atDistanceMeters: d))
            #expect(abs(back - d) <= 1e-9 * d)
            let r = model.measuredPowerDBm - Double.random(in: -5...60, using: &rng)
            #expect(abs(model.rssiDBm(atDistanceMeters: model.distanceMeters(forRSSI: r)) - r) <= 1e-9 * abs(r))
        }
    }

    /// The model's log₁₀ (ln x / ln 10, for speed) agrees with the C library's to a few units in the last place
    /// over the distances and squared distances the solvers evaluate, and is exact at powers of ten.
    @Test func modelsLogarithmIsTheLibrarysToTheLastBits() {
        var rng = SeededGenerator(seed: 2)
        for _ in 0..<20_000 {
            let x = exp(Double.random(in: log(1e-4)...log(1e6), using: &rng))
            let (ours, libm) = (PathLossModel.log10(x), log10(x))
            #expect(abs(ours - libm) <= 4 * max(abs(libm), 1) * Double.ulpOfOne, "x = \(x)")
        }
        for k in -4...6 { #expect(abs(PathLossModel.log10(pow(10, Double(k))) - Double(k)) <= 8 * Double.ulpOfOne) }
    }

    @Test func rangeSigmaIsTheInverseModelsDerivativeTimesSigma() {
        let model = PathLossModel(measuredPowerDBm: -60, pathLossExponent: 2.5, shadowingSigmaDB: 4)
        for d in [0.5, 1.0, 3.0, 10.0, 25.0] {
            let r = model.rssiDBm(atDistanceMeters: d)
            let h = 1e-4
            let slope = (model.distanceMeters(forRSSI: r + h) - model.distanceMeters(forRSSI: r - h)) / (2 * h)
            // Finite difference of the inverse against the closed form, to 1e-6 relative.
            #expect(abs(model.rangeSigmaMeters(atDistanceMeters: d) - 4 * abs(slope)) <= 1e-6 * d)
            #expect(abs(model.rssiSlopeDBPerMeter(atDistanceMeters: d) * slope - 1) < 1e-6)
        }
    }

    @Test func measurementGradientMatchesFiniteDifferences() {
        var rng = SeededGenerator(seed: 2)
        for _ in 0..<200 {
            let m = RSSIMeasurement(anchorX: Double.random(in: 0...10, using: &rng),
                                    anchorY: Double.random(in: 0...10, using: &rng), heightDifferenceMeters: 1.1,
                                    model: PathLossModel(measuredPowerDBm: -59, pathLossExponent: 2.3),
                                    rssiDBm: -70, sigmaDB: 3)
            let x = Double.random(in: -5...15, using: &rng), y = Double.random(in: -5...15, using: &rng)
            let (_, gx, gy) = m.linearize(x: x, y: y)
            let h = 1e-6
            let fx = (m.predictedRSSIDBm(x: x + h, y: y) - m.predictedRSSIDBm(x: x - h, y: y)) / (2 * h) / 3
            let fy = (m.predictedRSSIDBm(x: x, y: y + h) - m.predictedRSSIDBm(x: x, y: y - h)) / (2 * h) / 3
            #expect(abs(gx - fx) < 1e-5 && abs(gy - fy) < 1e-5)
        }
    }
}
