import Foundation
import Testing
@testable import Positioning

/// Filter consistency on simulation: the normalized estimation error squared (NEES) averaged over Monte Carlo
/// runs must lie in its two-sided 95% chi-square interval (Bar-Shalom, Li and Kirubarajan 2001, §5.4.2).
@Suite struct KalmanTests {
    static let runs = 200, steps = 20, dt = 1.0, q = 0.002
    static let model = PathLossModel(measuredPowerDBm: -60, pathLossExponent: 2.2, shadowingSigmaDB: 2)

    /// Runs the simulation; `update` applies one step's measurements to the filter.
    func averageNEES(seed: UInt64,
                     update: (inout ConstantVelocityKalman, [RSSIMeasurement], [Double], inout SeededGenerator) -> Void) -> [Double] {
        var rng = SeededGenerator(seed: seed)
        let venue = testVenue(anchorCount: 8, model: Self.model)
        var nees = Array(repeating: 0.0, count: Self.steps)
        for _ in 0..<Self.runs {
            // Truth: constant velocity driven by white acceleration with the filter's own q (exact discretization).
            var truth = [10.0, 10.0, 0.1 * rng.gaussian(), 0.1 * rng.gaussian()]
            var filter = ConstantVelocityKalman(x: 10 + 2 * rng.gaussian(), y: 10 + 2 * rng.gaussian(),
                                                positionCovariance: Matrix.identity(2, scale: 4),
                                                velocitySigma: 0.1, accelerationNoise: Self.q)
            for k in 0..<Self.steps {
                let dt = Self.dt, q = Self.q
                // Correlated (position, velocity) noise per axis from the Cholesky factor of Q.
                let l11 = (q * dt * dt * dt / 3).squareRoot(), l21 = (q * dt * dt / 2) / l11
                let l22 = (q * dt - l21 * l21).squareRoot()
                for axis in 0..<2 {
                    let w1 = rng.gaussian(), w2 = rng.gaussian()
                    truth[axis] += dt * truth[axis + 2] + l11 * w1
                    truth[axis + 2] += l21 * w1 + l22 * w2
                }
                filter.predict(dt: dt)
                let z = simulatedMeasurements(at: truth[0], truth[1], venue: venue, noiseSigmaDB: 2, using: &rng)
                update(&filter, z, truth, &rng)
                let e = (0..<4).map { truth[$0] - filter.x[$0] }
                let Pe = filter.P.matrix.solveSPD(e)!
                nees[k] += zip(e, Pe).reduce(0) { $0 + $1.0 * $1.1 } / Double(Self.runs)
            }
        }
        return nees
    }

    func expectConsistent(_ nees: [Double], label: String) {
        let n = Double(Self.runs), dof = 4 * n
        let lo = chiSquareQuantile(dof: dof, z: -1.96) / n, hi = chiSquareQuantile(dof: dof, z: 1.96) / n
        let inside = nees.filter { $0 >= lo && $0 <= hi }.count
        // 95% bounds, a nonlinear model: at least 85% of the steps inside, and the grand mean within the
        // bounds widened for the steps' count.
        #expect(Double(inside) >= 0.85 * Double(nees.count), "\(label): NEES \(nees), bounds [\(lo), \(hi)]")
        let mean = nees.reduce(0, +) / Double(nees.count)
        #expect(mean > 3.3 && mean < 4.7, "\(label): mean NEES \(mean)")
    }

    @Test func directRSSIUpdateIsConsistent() {
        let solver = PositionSolver(loss: .squared, bounds: nil)
        let nees = averageNEES(seed: 30) { filter, z, _, _ in
            filter.update(rssi: z, solver: solver, gate: .infinity)
        }
        expectConsistent(nees, label: "RSSI update")
    }

    @Test func positionUpdateFromTrilaterationIsConsistent() {
        let venue = testVenue(anchorCount: 8, model: Self.model)
        var trilaterator = Trilaterator(bounds: nil, anchors: venue.anchors, loss: .squared)
        trilaterator.priorVariance = [1e6, 1e6]
        let nees = averageNEES(seed: 31) { filter, z, _, _ in
            let fix = trilaterator.locate(z)!
            filter.update(position: [fix.x, fix.y], covariance: fix.covariance)
        }
        expectConsistent(nees, label: "position update")
    }

    @Test func predictionGrowsCovarianceAndMovesWithVelocity() {
        var f = ConstantVelocityKalman(x: 1, y: 2, positionCovariance: Matrix.identity(2), velocitySigma: 0.5,
                                       accelerationNoise: 0.5)
        f.x[2] = 1
        f.x[3] = -1
        f.predict(dt: 2)
        #expect(abs(f.x[0] - 3) < 1e-12 && abs(f.x[1] - 0) < 1e-12)
        // P00 = 1 + dt² σv² + q dt³/3 = 1 + 1 + 4/3.
        #expect(abs(f.P[0, 0] - (2 + 4.0 / 3)) < 1e-12)
        #expect(abs(f.speed - 2.0.squareRoot()) < 1e-12)
        #expect(abs(f.courseDegrees - 135) < 1e-9)
    }

    @Test func gateDropsAGrossOutlier() {
        var rng = SeededGenerator(seed: 32)
        let venue = testVenue(anchorCount: 8)
        var z = simulatedMeasurements(at: 10, 10, venue: venue, noiseSigmaDB: 1, using: &rng)
        z[0].rssiDBm += 30
        var f = ConstantVelocityKalman(x: 10.3, y: 9.8, positionCovariance: Matrix.identity(2), velocitySigma: 0.3,
                                       accelerationNoise: 0.5)
        let result = f.update(rssi: z, solver: PositionSolver(), gate: 10.83)
        #expect(result.gated == 1 && result.used == 7)
        #expect(abs(f.x[0] - 10) < 0.5 && abs(f.x[1] - 10) < 0.5)
    }
}

extension KalmanTests {
    /// The harness itself: with exact linear position measurements the NEES must be in bounds.
    @Test func linearPositionUpdateIsConsistent() {
        let nees = averageNEES(seed: 33) { filter, _, truth, rng in
            let z = [truth[0] + rng.gaussian(), truth[1] + rng.gaussian()]
            filter.update(position: z, covariance: Matrix.identity(2))
        }
        expectConsistent(nees, label: "linear update")
    }
}

extension KalmanTests {
    /// Density truncation: a mean deep inside is untouched; one at a wall moves in by σ √(2/π) (the half-normal
    /// mean) with variance σ² (1 − 2/π), and the correlated velocity follows.
    @Test func truncationToBoundsMatchesTheTruncatedNormal() {
        let bounds = Venue.Bounds(minX: 0, minY: 0, maxX: 100, maxY: 100)
        var inside = ConstantVelocityKalman(x: 50, y: 50, positionCovariance: Matrix.identity(2), velocitySigma: 1,
                                            accelerationNoise: 0.1)
        let before = inside
        inside.truncate(to: bounds)
        #expect((0..<4).allSatisfy { abs(inside.x[$0] - before.x[$0]) < 1e-12 })
        var wall = ConstantVelocityKalman(x: 0, y: 50, positionCovariance: Matrix.identity(2, scale: 4),
                                          velocitySigma: 1, accelerationNoise: 0.1)
        wall.P[0, 2] = 1
        wall.P[2, 0] = 1
        wall.truncate(to: bounds)
        let σ = 2.0
        #expect(abs(wall.x[0] - σ * (2 / Double.pi).squareRoot()) < 1e-9)
        #expect(abs(wall.P[0, 0] - σ * σ * (1 - 2 / Double.pi)) < 1e-9)
        // Velocity moves by P_vx / P_xx times the shift.
        #expect(abs(wall.x[2] - 0.25 * σ * (2 / Double.pi).squareRoot()) < 1e-9)
        #expect(abs(wall.x[1] - 50) < 1e-12)
    }

    /// The position update written out for H = [I 0] is the Joseph form of the general matrix products:
    /// `S = H P Hᵀ + R`, `K = P Hᵀ S⁻¹`, `x + K ν`, `(I − K H) P (I − K H)ᵀ + K R Kᵀ` and `νᵀ S⁻¹ ν`, on random
    /// states, correlated covariances and measurement covariances, to 1e-12.
    @Test func positionUpdateIsTheJosephFormOfTheMatrixProducts() {
        var rng = SeededGenerator(seed: 31)
        for trial in 0..<200 {
            // A random covariance B Bᵀ + εI (4 x 4) and a random R (2 x 2).
            var B = Matrix(rows: 4, columns: 4)
            for i in 0..<16 { B.entries[i] = rng.gaussian() }
            let P = (B * B.transposed + Matrix.identity(4, scale: 0.01)).symmetrized
            var C = Matrix(rows: 2, columns: 2)
            for i in 0..<4 { C.entries[i] = rng.gaussian() }
            let R = (C * C.transposed + Matrix.identity(2, scale: 0.1)).symmetrized
            var f = ConstantVelocityKalman(x: 0, y: 0, positionCovariance: Matrix.identity(2), velocitySigma: 1,
                                           accelerationNoise: 0.1)
            f.x = SIMD4(rng.gaussian(), rng.gaussian(), rng.gaussian(), rng.gaussian())
            f.P = Matrix4(P)
            let z = [rng.gaussian() * 3, rng.gaussian() * 3]
            let H = Matrix(rows: 2, columns: 4, entries: [1, 0, 0, 0, 0, 1, 0, 0])
            let ν = [z[0] - f.x[0], z[1] - f.x[1]]
            let S = (H * P * H.transposed + R).symmetrized
            let Si = S.inverseSPD()!
            let K = P * H.transposed * Si
            let x = zip((0..<4).map { f.x[$0] }, K * ν).map { $0 + $1 }
            let IKH = Matrix.identity(4) - K * H
            let expectedP = (IKH * P * IKH.transposed + K * R * K.transposed).symmetrized
            let Sν = Si * ν
            let expectedNIS = ν[0] * Sν[0] + ν[1] * Sν[1]
            let nis = f.update(position: z, covariance: R)
            #expect(zip((0..<4).map { f.x[$0] }, x).allSatisfy { abs($0 - $1) < 1e-12 * max(1, abs($1)) }, "trial \(trial)")
            #expect(zip(f.P.entries, expectedP.entries).allSatisfy { abs($0 - $1) < 1e-12 * max(1, abs($1)) },
                    "trial \(trial)")
            #expect(abs(nis - expectedNIS) < 1e-12 * max(1, expectedNIS), "trial \(trial)")
        }
    }
}
