import Foundation

/// Robust maximum a posteriori solver for a state whose first two entries are the horizontal position.
///
/// Minimizes `Σᵢ ρ(rᵢ(p)) + ½ (x − m)ᵀ Λ (x − m)` with `rᵢ = (zᵢ − hᵢ(p)) / σᵢ` by Levenberg-Marquardt on
/// the IRLS-weighted normal equations (Nocedal and Wright, *Numerical Optimization*, 2nd ed., §10.3), the
/// position projected into the bounds after every step. With the Kalman filter's prediction as the prior it
/// is the iterated extended Kalman update (Bell and Cathey, "The iterated Kalman filter update as a
/// Gauss-Newton method", IEEE TAC 38(2), 1993); with a venue-wide prior it is the trilaterator.
public struct PositionSolver: Sendable {
    /// The result of one solve.
    public struct Solution: Sendable {
        /// The estimate (same dimension as the prior).
        public var state: [Double]
        /// The posterior covariance `(Λ + Σ wᵢ gᵢ gᵢᵀ)⁻¹` at the estimate.
        public var covariance: Matrix
        /// The final IRLS weight of each measurement (1 = fully trusted).
        public var weights: [Double]
        /// The final value of the objective.
        public var cost: Double
        /// Iterations taken.
        public var iterations: Int
    }

    /// The robust loss on normalized residuals.
    public var loss: RobustLoss
    /// Where the position may be; nil for anywhere.
    public var bounds: Venue.Bounds?
    /// Iteration cap.
    public var maxIterations: Int

    /// Creates a solver.
    public init(loss: RobustLoss = .huber(2), bounds: Venue.Bounds? = nil, maxIterations: Int = 30) {
        self.loss = loss
        self.bounds = bounds
        self.maxIterations = maxIterations
    }

    /// Solves from `start` (the prior mean when nil); the prior information Λ must be positive definite.
    public func solve(_ measurements: [RSSIMeasurement], priorMean m: [Double], priorInformation Λ: Matrix,
                      start: [Double]? = nil) -> Solution {
        let n = m.count
        var x = clamp(start ?? m)
        var weights = measurements.map { _ in 1.0 }
        var cost = objective(x, measurements, m, Λ)
        var μ = 1e-3
        var iterations = 0
        while iterations < maxIterations {
            iterations += 1
            // Normal equations at x: (Λ + Σ w g gᵀ + μ diag) δ = Σ w r g − Λ (x − m).
            let (A, g) = normalEquations(x, measurements, Λ, &weights)
            let b = zip(g, Λ * zip(x, m).map { -($0 - $1) }).map { $0 + $1 }
            var accepted = false
            var step = 0.0
            for _ in 0..<12 {
                var damped = A
                for k in 0..<n { damped[k, k] += μ * max(A[k, k], 1e-9) }
                guard let δ = damped.solveSPD(b) else { μ *= 10; continue }
                let candidate = clamp(zip(x, δ).map { $0 + $1 })
                let c = objective(candidate, measurements, m, Λ)
                if c <= cost {
                    step = zip(candidate, x).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()
                    x = candidate
                    cost = c
                    μ = max(μ / 3, 1e-7)
                    accepted = true
                    break
                }
                μ *= 4
            }
            if !accepted || step < 1e-4 { break }
        }
        return Solution(state: x, covariance: covariance(x, measurements, Λ, &weights), weights: weights,
                        cost: cost, iterations: iterations)
    }

    /// The posterior covariance at x, refreshing the IRLS weights there.
    private func covariance(_ x: [Double], _ measurements: [RSSIMeasurement], _ Λ: Matrix,
                            _ weights: inout [Double]) -> Matrix {
        let (A, _) = normalEquations(x, measurements, Λ, &weights)
        return A.inverseSPD() ?? Λ.inverseSPD() ?? Matrix.identity(x.count, scale: 1e6)
    }

    /// The IRLS normal equations at x, refreshing the weights: the information `Λ + Σ wᵢ gᵢ gᵢᵀ` and the
    /// measurement side of the right-hand side, `Σ wᵢ rᵢ gᵢ`.
    private func normalEquations(_ x: [Double], _ measurements: [RSSIMeasurement], _ Λ: Matrix,
                                 _ weights: inout [Double]) -> (information: Matrix, gradient: [Double]) {
        var A = Λ
        var g = [Double](repeating: 0, count: x.count)
        for (i, z) in measurements.enumerated() {
            let (r, gx, gy) = z.linearize(x: x[0], y: x[1])
            let w = loss.weight(r)
            weights[i] = w
            A[0, 0] += w * gx * gx
            A[0, 1] += w * gx * gy
            A[1, 0] += w * gx * gy
            A[1, 1] += w * gy * gy
            g[0] += w * r * gx
            g[1] += w * r * gy
        }
        return (A, g)
    }

    /// The objective `Σ ρ(rᵢ) + ½ (x − m)ᵀ Λ (x − m)`.
    private func objective(_ x: [Double], _ measurements: [RSSIMeasurement], _ m: [Double], _ Λ: Matrix) -> Double {
        let e = zip(x, m).map { $0 - $1 }
        let Λe = Λ * e
        var c = 0.5 * zip(e, Λe).reduce(0) { $0 + $1.0 * $1.1 }
        for z in measurements {
            let (r, sigma) = z.residual(x: x[0], y: x[1])
            c += loss.loss(r / sigma)
        }
        return c
    }

    /// Projects the position part into the bounds.
    private func clamp(_ x: [Double]) -> [Double] {
        guard let bounds else { return x }
        var c = x
        c[0] = min(max(c[0], bounds.minX), bounds.maxX)
        c[1] = min(max(c[1], bounds.minY), bounds.maxY)
        return c
    }
}
