/// The weighted normal equations of a path-loss line, `y = level − n·l` (design row (1, −l)), with a Gaussian prior
/// on (level, n): what the survey fit (`PathLossCalibrator`), self-calibration and the pair fit each solve once per
/// pass of their Huber IRLS loops.
struct LineNormalEquations {
    /// XᵀWX + the prior's information, symmetric: (level, level), (level, n), (n, n).
    private(set) var a00 = 0.0, a01 = 0.0, a11 = 0.0
    /// XᵀWy + the prior's information times its mean.
    private(set) var b0 = 0.0, b1 = 0.0

    /// Equations with no prior.
    init() {}

    /// Equations holding only a prior with mean (`level`, `exponent`) and information matrix
    /// [[`levelInformation`, `crossInformation`], [`crossInformation`, `exponentInformation`]] in (level, n).
    init(level: Double, exponent: Double, levelInformation: Double, crossInformation: Double = 0,
         exponentInformation: Double) {
        a00 = levelInformation
        a01 = crossInformation
        a11 = exponentInformation
        b0 = levelInformation * level + crossInformation * exponent
        b1 = crossInformation * level + exponentInformation * exponent
    }

    /// Adds one row: `y` at log-distance `l`, with weight `weight` (1/σ² times the robust weight).
    mutating func add(l: Double, y: Double, weight w: Double) {
        a00 += w
        a01 -= w * l
        a11 += w * l * l
        b0 += w * y
        b1 -= w * y * l
    }

    /// The determinant of the left-hand side.
    var determinant: Double { a00 * a11 - a01 * a01 }

    /// The solution, nil when the system is singular (too few distinct distances, no prior).
    func solve() -> (level: Double, exponent: Double)? {
        let det = determinant
        guard det > 1e-12 * max(a00 * a11, 1e-300) else { return nil }
        return ((a11 * b0 - a01 * b1) / det, (a00 * b1 - a01 * b0) / det)
    }

    /// The level that fits best with the exponent held at `n` (for a singular system).
    func level(givenExponent n: Double) -> Double { (b0 - n * a01) / a00 }

    /// The inverse of the left-hand side (the parameters' covariance per unit of variance), nil when singular:
    /// (level, level), (level, n), (n, n).
    var inverse: (levelLevel: Double, levelExponent: Double, exponentExponent: Double)? {
        let det = determinant
        guard det > 0 else { return nil }
        return (a11 / det, -a01 / det, a00 / det)
    }
}
