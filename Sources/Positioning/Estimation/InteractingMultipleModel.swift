import FoundationEssentials
import Glibc

/// Interacting multiple model (IMM) estimator over constant-velocity filters that differ in process noise.
///
/// Blom and Bar-Shalom, "The interacting multiple model algorithm for systems with Markovian switching
/// coefficients", IEEE TAC 33(8), 1988; Bar-Shalom, Li and Kirubarajan 2001, §11.6.6. A walker goes straight
/// at a steady pace most of the time (a quiet model, small q) and sometimes turns, stops or starts (a
/// manoeuvre model, large q). Each cycle: mixing `x₀ⱼ = Σᵢ μᵢ|ⱼ xᵢ` with `μᵢ|ⱼ = πᵢⱼ μᵢ / c̄ⱼ`,
/// `c̄ⱼ = Σᵢ πᵢⱼ μᵢ`; each model predicts and updates; `μⱼ ∝ Λⱼ c̄ⱼ` with Λⱼ the likelihood of the innovation;
/// the output is the moment-matched mixture `x = Σ μⱼ xⱼ`, `P = Σ μⱼ (Pⱼ + (xⱼ − x)(xⱼ − x)ᵀ)`. With a single
/// model it is exactly that model's Kalman filter.
public struct InteractingMultipleModel: Sendable {
    /// The model-conditioned filters.
    public private(set) var filters: [ConstantVelocityKalman]
    /// The model probabilities μ, summing to 1.
    public private(set) var probabilities: [Double]
    /// Probability per second of leaving each model (the Markov chain's switching rate).
    public var switchRatePerSecond: Double

    /// Creates an IMM whose models share the initial state and differ in acceleration noise.
    public init(initial: ConstantVelocityKalman, accelerationNoises: [Double], switchRatePerSecond: Double = 0.1) {
        filters = accelerationNoises.map { q in
            var f = initial
            f.accelerationNoise = q
            return f
        }
        probabilities = Array(repeating: 1 / Double(accelerationNoises.count), count: accelerationNoises.count)
        self.switchRatePerSecond = switchRatePerSecond
    }

    /// The moment-matched combination of the models.
    public var combined: ConstantVelocityKalman {
        guard filters.count > 1 else { return filters[0] }
        var out = filters[0]
        for i in 0..<4 { out.x[i] = zip(filters, probabilities).reduce(0) { $0 + $1.1 * $1.0.x[i] } }
        var P = Matrix4()
        for (f, μ) in zip(filters, probabilities) {
            let d = f.x - out.x
            for i in 0..<4 { for j in 0..<4 { P[i, j] += μ * (f.P[i, j] + d[i] * d[j]) } }
        }
        P.symmetrize()
        out.P = P
        return out
    }

    /// Mixes the models for an interval of `dt` seconds and predicts each.
    public mutating func predict(dt: Double) {
        let n = filters.count
        guard n > 1 else {
            filters[0].predict(dt: dt)
            return
        }
        // π over dt: stay with probability (1 − rate)^dt, leave evenly to the others.
        let stay = pow(1 - switchRatePerSecond, max(dt, 0))
        func π(_ i: Int, _ j: Int) -> Double { i == j ? stay : (1 - stay) / Double(n - 1) }
        let c = (0..<n).map { j in (0..<n).reduce(0) { $0 + π($1, j) * probabilities[$1] } }
        var mixed = filters
        for j in 0..<n {
            // The mixing weight of model i into model j (written inline: this runs at every fix).
            func w(_ i: Int) -> Double { π(i, j) * probabilities[i] / c[j] }
            var x = SIMD4<Double>()
            for i in 0..<n {
                let wi = w(i)
                for k in 0..<4 { x[k] += wi * filters[i].x[k] }
            }
            var P = Matrix4()
            for i in 0..<n {
                let wi = w(i)
                let xi = filters[i].x, Pi = filters[i].P
                for a in 0..<4 {
                    let da = xi[a] - x[a]
                    for b in 0..<4 { P[a, b] += wi * (Pi[a, b] + da * (xi[b] - x[b])) }
                }
            }
            P.symmetrize()
            mixed[j].x = x
            mixed[j].P = P
        }
        filters = mixed
        probabilities = c
        for j in 0..<n { filters[j].predict(dt: dt) }
    }

    /// Updates every model with a position measurement and re-weighs them by their innovations' likelihood.
    /// Returns the mixture's normalized innovation squared (the probability-weighted model NIS).
    @discardableResult
    public mutating func update(position z: [Double], covariance R: Matrix) -> Double {
        update(x: z[0], y: z[1], covariance: Matrix2(R))
    }

    /// `update(position:covariance:)` without its arrays (the tracker's path, at every fix).
    mutating func update(x z0: Double, y z1: Double, covariance R: Matrix2) -> Double {
        var likelihood = [Double](repeating: 0, count: filters.count)
        var nis = 0.0
        for j in filters.indices {
            let (f0, f1) = (filters[j].x[0], filters[j].x[1])
            let sxx = filters[j].P[0, 0] + R.a00, sxy = filters[j].P[0, 1] + R.a01, syy = filters[j].P[1, 1] + R.a11
            let det = sxx * syy - sxy * sxy
            let ex = z0 - f0, ey = z1 - f1
            let q = det > 0 ? (syy * ex * ex - 2 * sxy * ex * ey + sxx * ey * ey) / det : .infinity
            likelihood[j] = det > 0 ? exp(-0.5 * q) / (2 * Double.pi * det.squareRoot()) : 0
            nis += probabilities[j] * q
            _ = filters[j].update(x: z0, y: z1, covariance: R)
        }
        reweigh(likelihood)
        return nis
    }

    /// Updates every model directly on the RSSI (model probabilities unchanged).
    public mutating func update(rssi measurements: [RSSIMeasurement], solver: PositionSolver, gate: Double,
                                alternativeStart: (x: Double, y: Double)? = nil) {
        for j in filters.indices {
            filters[j].update(rssi: measurements, solver: solver, gate: gate, alternativeStart: alternativeStart)
        }
    }

    /// Applies a change to every model (velocity damping, speed cap, bounds).
    public mutating func forEachModel(_ body: (inout ConstantVelocityKalman) -> Void) {
        for j in filters.indices { body(&filters[j]) }
    }

    private mutating func reweigh(_ likelihood: [Double]) {
        let w = zip(likelihood, probabilities).map { $0 * $1 }
        let total = w.reduce(0, +)
        guard total > 0, total.isFinite else { return }
        // Keep every model alive: a probability never drops below 1e-4.
        probabilities = w.map { max($0 / total, 1e-4) }
        let s = probabilities.reduce(0, +)
        probabilities = probabilities.map { $0 / s }
    }
}
