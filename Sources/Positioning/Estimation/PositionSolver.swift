import FoundationEssentials

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
    ///
    /// A position alone (the trilaterator's two unknowns) is solved in registers by `solvePlane`, which gives the
    /// same bits as this general path without its dozens of small heap arrays per iteration.
    public func solve(_ measurements: [RSSIMeasurement], priorMean m: [Double], priorInformation Λ: Matrix,
                      start: [Double]? = nil) -> Solution {
        if m.count == 2, Λ.rows == 2, Λ.columns == 2, start?.count ?? 2 == 2 {
            return solvePlane(measurements, priorMean: m, priorInformation: Λ, start: start)
        }
        return solveGeneral(measurements, priorMean: m, priorInformation: Λ, start: start)
    }

    /// `solve` for a state of any dimension, on `Matrix` and arrays.
    func solveGeneral(_ measurements: [RSSIMeasurement], priorMean m: [Double], priorInformation Λ: Matrix,
                      start: [Double]? = nil) -> Solution {
        let n = m.count
        var x = clamp(start ?? m)
        var weights = measurements.map { _ in 1.0 }
        var cost = objective(x, measurements, m, Λ)
        var damping = Damping()
        var iterations = 0
        while iterations < maxIterations {
            iterations += 1
            // Normal equations at x: (Λ + Σ w g gᵀ + μ diag) δ = Σ w r g − Λ (x − m).
            let (A, g) = normalEquations(x, measurements, Λ, &weights)
            let b = zip(g, Λ * zip(x, m).map { -($0 - $1) }).map { $0 + $1 }
            let step: Double? = damping.step { μ in
                var damped = A
                for k in 0..<n { damped[k, k] += μ * max(A[k, k], 1e-9) }
                guard let δ = damped.solveSPD(b) else { return .singular }
                let candidate = clamp(zip(x, δ).map { $0 + $1 })
                let c = objective(candidate, measurements, m, Λ)
                guard c <= cost else { return .worse }
                let step = zip(candidate, x).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()
                x = candidate
                cost = c
                return .accepted(step: step)
            }
            guard let step, !(step < 1e-4) else { break }
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

extension PositionSolver {
    /// Levenberg-Marquardt's damping schedule, one place for both paths: μ starts at 10⁻³, a trial step that
    /// lowers the objective is taken and μ shrinks threefold (not below 10⁻⁷); a step that raises it is refused
    /// and μ grows fourfold, a singular damped system tenfold; at most 12 trials per iteration.
    struct Damping {
        /// What one trial with the current μ gave.
        enum Trial {
            /// Taken: the step's length.
            case accepted(step: Double)
            /// The objective went up.
            case worse
            /// The damped system was not positive definite.
            case singular
        }

        private(set) var μ = 1e-3

        /// Runs trials until one is accepted; its step length, or nil when all 12 failed.
        mutating func step(_ trial: (Double) -> Trial) -> Double? {
            for _ in 0..<12 {
                switch trial(μ) {
                case .accepted(let step):
                    μ = max(μ / 3, 1e-7)
                    return step
                case .worse:
                    μ *= 4
                case .singular:
                    μ *= 10
                }
            }
            return nil
        }
    }

    /// A symmetric 2 x 2 system as four numbers (row-major, as `Matrix` stores it).
    private struct Plane {
        var a00: Double, a01: Double, a10: Double, a11: Double

        /// Λ v, summed in `Matrix`'s order (from 0, column by column).
        func times(_ v0: Double, _ v1: Double) -> (Double, Double) {
            var o0 = 0.0, o1 = 0.0
            o0 += a00 * v0
            o0 += a01 * v1
            o1 += a10 * v0
            o1 += a11 * v1
            return (o0, o1)
        }

        /// The Cholesky factor (l00, l10, l11), as `Matrix.cholesky` computes it; nil when not positive definite.
        func cholesky() -> (l00: Double, l10: Double, l11: Double)? {
            let d0 = a00
            guard d0 > 0, d0.isFinite else { return nil }
            let l00 = d0.squareRoot()
            let l10 = a10 / l00
            var d1 = a11
            d1 -= l10 * l10
            guard d1 > 0, d1.isFinite else { return nil }
            return (l00, l10, d1.squareRoot())
        }

        /// `Matrix.solve(cholesky:_:)`: forward then back substitution, in its order.
        static func solve(_ l: (l00: Double, l10: Double, l11: Double), _ b0: Double, _ b1: Double)
            -> (Double, Double)
        {
            var y0 = b0, y1 = b1
            y0 /= l.l00
            y1 -= l.l10 * y0
            y1 /= l.l11
            y1 /= l.l11
            y0 -= l.l10 * y1
            y0 /= l.l00
            return (y0, y1)
        }

        /// `Matrix.inverseSPD` (columns solved one by one, then symmetrized).
        func inverse() -> Plane? {
            guard let l = cholesky() else { return nil }
            let (c00, c10) = Plane.solve(l, 1, 0)
            let (c01, c11) = Plane.solve(l, 0, 1)
            let v = 0.5 * (c10 + c01)
            return Plane(a00: c00, a01: v, a10: v, a11: c11)
        }

        var matrix: Matrix { Matrix(rows: 2, columns: 2, entries: [a00, a01, a10, a11]) }
    }

    /// `solveGeneral` for a state that is the position alone, every number computed in the same order.
    func solvePlane(_ measurements: [RSSIMeasurement], priorMean m: [Double], priorInformation Λm: Matrix,
                    start: [Double]?) -> Solution {
        let Λ = Plane(a00: Λm[0, 0], a01: Λm[0, 1], a10: Λm[1, 0], a11: Λm[1, 1])
        let m0 = m[0], m1 = m[1]
        func clamped(_ x0: Double, _ x1: Double) -> (Double, Double) {
            guard let bounds else { return (x0, x1) }
            return (min(max(x0, bounds.minX), bounds.maxX), min(max(x1, bounds.minY), bounds.maxY))
        }
        func objective(_ x0: Double, _ x1: Double) -> Double {
            let e0 = x0 - m0, e1 = x1 - m1
            let (l0, l1) = Λ.times(e0, e1)
            var dot = 0.0
            dot += e0 * l0
            dot += e1 * l1
            var c = 0.5 * dot
            for z in measurements {
                let (r, sigma) = z.residual(x: x0, y: x1)
                c += loss.loss(r / sigma)
            }
            return c
        }
        var weights = [Double](repeating: 1, count: measurements.count)
        func normalEquations(_ x0: Double, _ x1: Double) -> (Plane, Double, Double) {
            var A = Λ
            var g0 = 0.0, g1 = 0.0
            weights.withUnsafeMutableBufferPointer { weights in
                for (i, z) in measurements.enumerated() {
                    let (r, gx, gy) = z.linearize(x: x0, y: x1)
                    let w = loss.weight(r)
                    weights[i] = w
                    A.a00 += w * gx * gx
                    A.a01 += w * gx * gy
                    A.a10 += w * gx * gy
                    A.a11 += w * gy * gy
                    g0 += w * r * gx
                    g1 += w * r * gy
                }
            }
            return (A, g0, g1)
        }
        var (x0, x1) = clamped(start?[0] ?? m0, start?[1] ?? m1)
        var cost = objective(x0, x1)
        var damping = Damping()
        var iterations = 0
        while iterations < maxIterations {
            iterations += 1
            let (A, g0, g1) = normalEquations(x0, x1)
            let (p0, p1) = Λ.times(-(x0 - m0), -(x1 - m1))
            let b0 = g0 + p0, b1 = g1 + p1
            let step: Double? = damping.step { μ in
                var damped = A
                damped.a00 += μ * max(A.a00, 1e-9)
                damped.a11 += μ * max(A.a11, 1e-9)
                guard let l = damped.cholesky() else { return .singular }
                let (d0, d1) = Plane.solve(l, b0, b1)
                let (c0, c1) = clamped(x0 + d0, x1 + d1)
                let c = objective(c0, c1)
                guard c <= cost else { return .worse }
                var squares = 0.0
                squares += (c0 - x0) * (c0 - x0)
                squares += (c1 - x1) * (c1 - x1)
                (x0, x1) = (c0, c1)
                cost = c
                return .accepted(step: squares.squareRoot())
            }
            guard let step, !(step < 1e-4) else { break }
        }
        let (A, _, _) = normalEquations(x0, x1)
        let covariance = A.inverse()?.matrix ?? Λ.inverse()?.matrix ?? Matrix.identity(2, scale: 1e6)
        return Solution(state: [x0, x1], covariance: covariance, weights: weights, cost: cost, iterations: iterations)
    }
}
