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

    /// The solve stops when the undamped Gauss-Newton step δ = A⁻¹b is this short in the metric of the
    /// information A, `bᵀA⁻¹b = δᵀAδ` (the squared Newton decrement, twice the objective's predicted decrease:
    /// Boyd and Vandenberghe, *Convex Optimization*, §9.5.1): 10⁻⁶ is a step of a thousandth of a standard
    /// deviation, far inside what the estimate's own uncertainty can tell from the optimum. Or when an accepted
    /// step is under 0.1 mm. Along a flat valley of the objective (few anchors, a weak prior) the steps
    /// shrink by a fixed ratio, and a step-length rule alone ran the cap of iterations on one solve in six.
    static let decrementTolerance = 1e-6

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
            if let δ = A.solveSPD(b), zip(b, δ).reduce(0, { $0 + $1.0 * $1.1 }) < Self.decrementTolerance { break }
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
        // Read in place (`RSSIMeasurement.linearize(_:x:y:)`): a method called on an element copies it.
        measurements.withUnsafeBufferPointer { ms in
            for i in ms.indices {
                let (r, gx, gy) = RSSIMeasurement.linearize(ms.baseAddress! + i, x: x[0], y: x[1])
                let w = loss.weight(r)
                weights[i] = w
                A[0, 0] += w * gx * gx
                A[0, 1] += w * gx * gy
                A[1, 0] += w * gx * gy
                A[1, 1] += w * gy * gy
                g[0] += w * r * gx
                g[1] += w * r * gy
            }
        }
        return (A, g)
    }

    /// The objective `Σ ρ(rᵢ) + ½ (x − m)ᵀ Λ (x − m)`.
    private func objective(_ x: [Double], _ measurements: [RSSIMeasurement], _ m: [Double], _ Λ: Matrix) -> Double {
        let e = zip(x, m).map { $0 - $1 }
        let Λe = Λ * e
        var c = 0.5 * zip(e, Λe).reduce(0) { $0 + $1.0 * $1.1 }
        measurements.withUnsafeBufferPointer { ms in
            for i in ms.indices {
                let (r, sigma) = RSSIMeasurement.residual(ms.baseAddress! + i, x: x[0], y: x[1])
                c += loss.loss(r / sigma)
            }
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

    /// `solveGeneral` for a state that is the position alone, every number computed in the same order.
    func solvePlane(_ measurements: [RSSIMeasurement], priorMean m: [Double], priorInformation Λm: Matrix,
                    start: [Double]?) -> Solution {
        measurements.withUnsafeBufferPointer { solvePlane($0, priorMean: m, priorInformation: Λm, start: start) }
    }

    /// `solvePlane` on the measurements in place: read through an array, each measurement would be copied
    /// (its field and walls retained and released) at every evaluation.
    private func solvePlane(_ measurements: UnsafeBufferPointer<RSSIMeasurement>, priorMean m: [Double],
                            priorInformation Λm: Matrix, start: [Double]?) -> Solution {
        let Λ = Matrix2(Λm)
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
            for i in measurements.indices {
                let (r, sigma) = RSSIMeasurement.residual(measurements.baseAddress! + i, x: x0, y: x1)
                c += loss.loss(r / sigma)
            }
            return c
        }
        var weights = [Double](repeating: 1, count: measurements.count)
        func normalEquations(_ x0: Double, _ x1: Double) -> (Matrix2, Double, Double) {
            var A = Λ
            var g0 = 0.0, g1 = 0.0
            weights.withUnsafeMutableBufferPointer { weights in
                for i in measurements.indices {
                    let (r, gx, gy) = RSSIMeasurement.linearize(measurements.baseAddress! + i, x: x0, y: x1)
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
            if let l = A.cholesky() {
                let (d0, d1) = Matrix2.solve(l, b0, b1)
                var decrement = 0.0
                decrement += b0 * d0
                decrement += b1 * d1
                if decrement < Self.decrementTolerance { break }
            }
            let step: Double? = damping.step { μ in
                var damped = A
                damped.a00 += μ * max(A.a00, 1e-9)
                damped.a11 += μ * max(A.a11, 1e-9)
                guard let l = damped.cholesky() else { return .singular }
                let (d0, d1) = Matrix2.solve(l, b0, b1)
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
