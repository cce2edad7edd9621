import FoundationEssentials
import Glibc

/// The Gaussian-process regression behind one `ResidualField.Layer`: one anchor's survey residuals, binned.
///
/// Residuals are first winsorized at 3 robust sigmas (a 20 dB outlier must not carry a bin), then averaged per
/// bin of `binMeters` (coarser when that makes over `maximumBins` bins). With the bins' kernel matrix `K` (squared exponential, variance τ², length ℓ) and their
/// noise `N = diag(j²/nᵦ + σ_c²)`, the posterior at p is `b̂(p) = k(p)ᵀ (K + N)⁻¹ r̄` and
/// `v(p) = τ² − k(p)ᵀ (K + N)⁻¹ k(p)`, through one Cholesky factor (Rasmussen and Williams 2006, Alg. 2.1).
struct ResidualRegression {
    /// Bins per anchor above which the survey is binned coarser (a survey's; `init` takes another).
    static let maximumBins = 300
    private var binX: [Double] = [], binY: [Double] = [], binMean: [Double] = []
    private let rows: [CalibrationSample]
    private let residuals: [Double]
    private let parameters: ResidualField.Parameters
    /// Lower Cholesky factor of K + N (row-major, m × m), and α = (K + N)⁻¹ r̄.
    private var factor: [Double] = []
    private var alpha: [Double] = []

    init(rows: [CalibrationSample], residuals: [Double], parameters: ResidualField.Parameters,
         maximumBins: Int = ResidualRegression.maximumBins) {
        self.rows = rows
        self.residuals = residuals
        self.parameters = parameters
        let center = PathLossCalibrator.median(residuals)
        let scale = 1.4826 * PathLossCalibrator.median(residuals.map { abs($0 - center) })
        let limit = 3 * max(scale, 1)
        var bins: [Int64: (sx: Double, sy: Double, sr: Double, n: Int)] = [:]
        var size = parameters.binMeters
        repeat {
            // A survey denser than `maximumBins` bins is binned coarser (the exact regression costs m³ once and
            // m² per grid node), by 1.5 per round; bins stay well under ℓ for any real venue.
            if !bins.isEmpty { size *= 1.5 }
            bins.removeAll(keepingCapacity: true)
            for (s, r) in zip(rows, residuals) {
                let key = Int64((s.x / size).rounded(.down)) << 32 ^ Int64((s.y / size).rounded(.down)) & 0xffff_ffff
                let clipped = min(max(r, center - limit), center + limit)
                var b = bins[key] ?? (0, 0, 0, 0)
                b.sx += s.x; b.sy += s.y; b.sr += clipped; b.n += 1
                bins[key] = b
            }
        } while bins.count > maximumBins
        var noise: [Double] = []
        for key in bins.keys.sorted() {
            let b = bins[key]!
            let n = Double(b.n)
            binX.append(b.sx / n)
            binY.append(b.sy / n)
            binMean.append(b.sr / n)
            let j = parameters.jitterSigmaDB, c = parameters.binSigmaDB
            noise.append(j * j / n + c * c)
        }
        let m = binMean.count
        var a = [Double](repeating: 0, count: m * m)
        for p in 0..<m {
            for q in 0...p {
                let k = kernel(binX[p] - binX[q], binY[p] - binY[q]) + (p == q ? noise[p] : 0)
                a[p * m + q] = k
                a[q * m + p] = k
            }
        }
        factor = Self.cholesky(a, m)
        alpha = Self.backSubstitute(factor, m, Self.forwardSubstitute(factor, m, binMean))
    }

    /// The prior covariance of the bias between two places `(dx, dy)` apart.
    private func kernel(_ dx: Double, _ dy: Double) -> Double {
        let l = parameters.lengthScaleMeters, t = parameters.priorSigmaDB
        return t * t * exp(-(dx * dx + dy * dy) / (2 * l * l))
    }

    /// The posterior mean and variance at (x, y).
    func posterior(x: Double, y: Double) -> (mean: Double, variance: Double) {
        let m = binMean.count
        guard m > 0 else { return (0, parameters.priorSigmaDB * parameters.priorSigmaDB) }
        var k = [Double](repeating: 0, count: m)
        var mean = 0.0
        for i in 0..<m {
            k[i] = kernel(x - binX[i], y - binY[i])
            mean += k[i] * alpha[i]
        }
        let w = Self.forwardSubstitute(factor, m, k)
        let t2 = parameters.priorSigmaDB * parameters.priorSigmaDB
        let explained = w.reduce(0) { $0 + $1 * $1 }
        return (mean, max(t2 - explained, 0))
    }

    /// The layer tabulated on a grid over `area`, with the survey's robust sigma around model plus field.
    func layer(over area: Venue.Bounds) -> ResidualField.Layer {
        let step = parameters.gridMeters
        let nx = max(Int(((area.maxX - area.minX) / step).rounded(.up)) + 1, 2)
        let ny = max(Int(((area.maxY - area.minY) / step).rounded(.up)) + 1, 2)
        var bias = [Double](repeating: 0, count: nx * ny), variance = bias
        for j in 0..<ny {
            for i in 0..<nx {
                let p = posterior(x: area.minX + Double(i) * step, y: area.minY + Double(j) * step)
                bias[j * nx + i] = p.mean
                variance[j * nx + i] = p.variance
            }
        }
        var layer = ResidualField.Layer(originX: area.minX, originY: area.minY, step: step, nx: nx, ny: ny,
                                        bias: bias, variance: variance, sigmaDB: 1)
        let after = zip(rows, residuals).map { s, r in r - layer.evaluate(x: s.x, y: s.y).biasDB }
        let center = PathLossCalibrator.median(after)
        layer.sigmaDB = max(1.4826 * PathLossCalibrator.median(after.map { abs($0 - center) }), 1)
        return layer
    }

    /// Lower Cholesky factor of a symmetric positive definite m × m matrix (Golub and Van Loan, Alg. 4.2.1);
    /// a tiny jitter keeps near-duplicate bins factorizable.
    static func cholesky(_ a: [Double], _ m: Int) -> [Double] {
        var l = [Double](repeating: 0, count: m * m)
        for j in 0..<m {
            var s = a[j * m + j] + 1e-9
            for k in 0..<j { s -= l[j * m + k] * l[j * m + k] }
            let d = max(s, 1e-12).squareRoot()
            l[j * m + j] = d
            for i in (j + 1)..<max(m, j + 1) {
                var t = a[i * m + j]
                for k in 0..<j { t -= l[i * m + k] * l[j * m + k] }
                l[i * m + j] = t / d
            }
        }
        return l
    }

    /// Solves L w = b.
    static func forwardSubstitute(_ l: [Double], _ m: Int, _ b: [Double]) -> [Double] {
        var w = b
        for i in 0..<m {
            var s = w[i]
            for k in 0..<i { s -= l[i * m + k] * w[k] }
            w[i] = s / l[i * m + i]
        }
        return w
    }

    /// Solves Lᵀ x = w.
    static func backSubstitute(_ l: [Double], _ m: Int, _ w: [Double]) -> [Double] {
        var x = w
        for i in stride(from: m - 1, through: 0, by: -1) {
            var s = x[i]
            for k in (i + 1)..<max(m, i + 1) { s -= l[k * m + i] * x[k] }
            x[i] = s / l[i * m + i]
        }
        return x
    }
}
