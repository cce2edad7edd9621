import FoundationEssentials

/// A small dense row-major matrix for the estimators' normal equations (sizes 1 to 4).
///
/// Only what the filters need: products, transposes, sums and a Cholesky factorization for solving
/// symmetric positive-definite systems (no explicit inverses except for covariance read-out).
public struct Matrix: Sendable, Hashable {
    /// Number of rows.
    public let rows: Int
    /// Number of columns.
    public let columns: Int
    /// Entries, row-major.
    public var entries: [Double]

    /// A matrix of zeros.
    public init(rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
        entries = Array(repeating: 0, count: rows * columns)
    }

    /// A matrix from row-major entries.
    public init(rows: Int, columns: Int, entries: [Double]) {
        precondition(entries.count == rows * columns, "Matrix: \(entries.count) entries for \(rows)x\(columns)")
        self.rows = rows
        self.columns = columns
        self.entries = entries
    }

    /// The n x n identity scaled by `scale`.
    public static func identity(_ n: Int, scale: Double = 1) -> Matrix {
        var m = Matrix(rows: n, columns: n)
        for i in 0..<n { m[i, i] = scale }
        return m
    }

    /// A diagonal matrix.
    public static func diagonal(_ d: [Double]) -> Matrix {
        var m = Matrix(rows: d.count, columns: d.count)
        for i in d.indices { m[i, i] = d[i] }
        return m
    }

    /// Entry at row i, column j.
    @inlinable public subscript(i: Int, j: Int) -> Double {
        get { entries[i * columns + j] }
        set { entries[i * columns + j] = newValue }
    }

    /// The transpose.
    public var transposed: Matrix {
        var t = Matrix(rows: columns, columns: rows)
        for i in 0..<rows { for j in 0..<columns { t[j, i] = self[i, j] } }
        return t
    }

    /// The symmetric part, (A + Aᵀ) / 2, to keep covariances symmetric against rounding.
    public var symmetrized: Matrix {
        var s = self
        for i in 0..<rows { for j in 0..<i { let v = 0.5 * (self[i, j] + self[j, i]); s[i, j] = v; s[j, i] = v } }
        return s
    }

    /// Matrix product.
    public static func * (a: Matrix, b: Matrix) -> Matrix {
        precondition(a.columns == b.rows, "Matrix: \(a.rows)x\(a.columns) * \(b.rows)x\(b.columns)")
        var c = Matrix(rows: a.rows, columns: b.columns)
        for i in 0..<a.rows {
            for k in 0..<a.columns {
                let aik = a[i, k]
                if aik == 0 { continue }
                for j in 0..<b.columns { c[i, j] += aik * b[k, j] }
            }
        }
        return c
    }

    /// Matrix-vector product.
    public static func * (a: Matrix, v: [Double]) -> [Double] {
        precondition(a.columns == v.count, "Matrix: \(a.rows)x\(a.columns) * vector of \(v.count)")
        var out = Array(repeating: 0.0, count: a.rows)
        for i in 0..<a.rows { for j in 0..<a.columns { out[i] += a[i, j] * v[j] } }
        return out
    }

    /// Sum.
    public static func + (a: Matrix, b: Matrix) -> Matrix {
        var c = a
        for i in c.entries.indices { c.entries[i] += b.entries[i] }
        return c
    }

    /// Difference.
    public static func - (a: Matrix, b: Matrix) -> Matrix {
        var c = a
        for i in c.entries.indices { c.entries[i] -= b.entries[i] }
        return c
    }

    /// Scalar multiple.
    public static func * (s: Double, a: Matrix) -> Matrix {
        var c = a
        for i in c.entries.indices { c.entries[i] *= s }
        return c
    }

    /// The lower-triangular Cholesky factor L with A = L Lᵀ, or nil when A is not positive definite.
    ///
    /// Golub and Van Loan, *Matrix Computations*, 4th ed., Algorithm 4.2.1.
    public func cholesky() -> Matrix? {
        precondition(rows == columns, "Matrix: Cholesky of a non-square matrix")
        var l = Matrix(rows: rows, columns: rows)
        for j in 0..<rows {
            var d = self[j, j]
            for k in 0..<j { d -= l[j, k] * l[j, k] }
            guard d > 0, d.isFinite else { return nil }
            let ljj = d.squareRoot()
            l[j, j] = ljj
            for i in (j + 1)..<max(rows, j + 1) {
                var s = self[i, j]
                for k in 0..<j { s -= l[i, k] * l[j, k] }
                l[i, j] = s / ljj
            }
        }
        return l
    }

    /// Solves A x = b for symmetric positive-definite A through its Cholesky factor; nil when A is not SPD.
    public func solveSPD(_ b: [Double]) -> [Double]? {
        guard let l = cholesky() else { return nil }
        return Matrix.solve(cholesky: l, b)
    }

    /// Solves (L Lᵀ) x = b by forward then back substitution.
    public static func solve(cholesky l: Matrix, _ b: [Double]) -> [Double] {
        let n = l.rows
        var y = b
        for i in 0..<n {
            for k in 0..<i { y[i] -= l[i, k] * y[k] }
            y[i] /= l[i, i]
        }
        for i in stride(from: n - 1, through: 0, by: -1) {
            for k in (i + 1)..<max(n, i + 1) { y[i] -= l[k, i] * y[k] }
            y[i] /= l[i, i]
        }
        return y
    }

    /// The inverse of a symmetric positive-definite matrix (a covariance from an information matrix).
    public func inverseSPD() -> Matrix? {
        guard let l = cholesky() else { return nil }
        var inv = Matrix(rows: rows, columns: rows)
        for j in 0..<rows {
            var e = Array(repeating: 0.0, count: rows)
            e[j] = 1
            let col = Matrix.solve(cholesky: l, e)
            for i in 0..<rows { inv[i, j] = col[i] }
        }
        return inv.symmetrized
    }
}
