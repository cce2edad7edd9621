import Foundation
import Testing
@testable import Positioning

@Suite struct KalmanIMMTests {
    func start() -> ConstantVelocityKalman {
        ConstantVelocityKalman(x: 0, y: 0, positionCovariance: Matrix.identity(2, scale: 4), velocitySigma: 1,
                               accelerationNoise: 0.5)
    }

    /// With one model the IMM is that model's Kalman filter, to rounding.
    @Test func singleModelIsThePlainFilter() {
        var rng = SeededGenerator(seed: 70)
        var imm = InteractingMultipleModel(initial: start(), accelerationNoises: [0.5])
        var kf = start()
        for _ in 0..<20 {
            imm.predict(dt: 1)
            kf.predict(dt: 1)
            let z = [rng.gaussian(), rng.gaussian()]
            imm.update(position: z, covariance: Matrix.identity(2))
            kf.update(position: z, covariance: Matrix.identity(2))
        }
        let c = imm.combined
        #expect((0..<4).allSatisfy { abs(c.x[$0] - kf.x[$0]) < 1e-12 })
        #expect(zip(c.P.entries, kf.P.entries).allSatisfy { abs($0 - $1) < 1e-12 })
    }

    /// A straight walk favours the quiet model; a sharp turn hands the weight to the manoeuvre model, and the
    /// combined covariance contains the spread between the models.
    @Test func turnsShiftProbabilityToTheManoeuvreModel() {
        var rng = SeededGenerator(seed: 71)
        var imm = InteractingMultipleModel(initial: start(), accelerationNoises: [0.003, 0.5],
                                           switchRatePerSecond: 0.1)
        var x = 0.0, y = 0.0
        var northward = 0.0
        for k in 0..<60 {
            // 30 s east at 1 m/s, then north.
            if k < 30 { x += 1 } else { y += 1 }
            imm.predict(dt: 1)
            imm.update(position: [x + 0.3 * rng.gaussian(), y + 0.3 * rng.gaussian()],
                       covariance: Matrix.identity(2, scale: 0.09))
            if k == 29 { #expect(imm.probabilities[0] > 0.8, "quiet \(imm.probabilities)") }
            if k == 31 { #expect(imm.probabilities[1] > 0.5, "after the turn \(imm.probabilities)") }
            if k >= 45 { northward += imm.combined.x[3] / 15 }
        }
        #expect(imm.probabilities[0] > 0.5, "straight again \(imm.probabilities)")
        let c = imm.combined
        let floor = zip(imm.filters, imm.probabilities).reduce(0) { $0 + $1.1 * $1.0.P[0, 0] }
        #expect(c.P[0, 0] >= floor - 1e-12)
        // The last 15 s average about 1 m/s north (single steps jitter with the 0.3 m noise).
        #expect(abs(northward - 1) < 0.15, "northward speed \(northward)")
    }
}
