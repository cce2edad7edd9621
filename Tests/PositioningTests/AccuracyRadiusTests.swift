import Foundation
import Testing
@testable import Positioning

@Suite struct AccuracyRadiusTests {
    @Test func circularCaseIsTheRayleighQuantile() {
        // σ √(−2 ln 0.32) = 1.5096 σ.
        let r = AccuracyRadius.radius68(sxx: 4, sxy: 0, syy: 4)
        #expect(abs(r - 2 * (-2 * log(0.32)).squareRoot()) < 1e-3)
    }

    @Test func degenerateCaseIsTheOneDimensionalQuantile() {
        // P(|x| <= r) = 0.68 for a unit normal at r = 0.9945.
        #expect(abs(AccuracyRadius.radius68(sxx: 1, sxy: 0, syy: 0) - 0.9945) < 2e-3)
    }

    /// Monte Carlo: for random covariances the circle holds 68% ± 1.5% of the samples.
    @Test func elongatedEllipsesAreCoveredCorrectly() {
        var rng = SeededGenerator(seed: 40)
        for _ in 0..<10 {
            let λ1 = Double.random(in: 0.5...9, using: &rng), ratio = Double.random(in: 0.01...1, using: &rng)
            let θ = Double.random(in: 0..<Double.pi, using: &rng)
            let c = cos(θ), s = sin(θ), λ2 = ratio * λ1
            let sxx = λ1 * c * c + λ2 * s * s, syy = λ1 * s * s + λ2 * c * c, sxy = (λ1 - λ2) * c * s
            let r = AccuracyRadius.radius68(sxx: sxx, sxy: sxy, syy: syy)
            var inside = 0
            let n = 20000
            for _ in 0..<n {
                let u = λ1.squareRoot() * rng.gaussian(), v = λ2.squareRoot() * rng.gaussian()
                if (u * u + v * v).squareRoot() <= r { inside += 1 }
            }
            #expect(abs(Double(inside) / Double(n) - 0.68) < 0.015)
        }
    }
}
