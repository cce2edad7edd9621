/// A 2 x 2 matrix as four numbers (row-major, as `Matrix` stores it), for the position-sized algebra that runs
/// at every fix: the solver's normal equations and the Kalman filter's innovation. Each operation does the same
/// sums in the same order as `Matrix` does, so results are the same bits without `Matrix`'s heap arrays.
struct Matrix2 {
    var a00: Double, a01: Double, a10: Double, a11: Double

    /// The upper-left 2 x 2 block of a matrix.
    init(_ m: Matrix) {
        self.init(a00: m[0, 0], a01: m[0, 1], a10: m[1, 0], a11: m[1, 1])
    }

    init(a00: Double, a01: Double, a10: Double, a11: Double) {
        self.a00 = a00
        self.a01 = a01
        self.a10 = a10
        self.a11 = a11
    }

    /// M v, summed in `Matrix`'s order (from 0, column by column).
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
    static func solve(_ l: (l00: Double, l10: Double, l11: Double), _ b0: Double, _ b1: Double) -> (Double, Double) {
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
    func inverse() -> Matrix2? {
        guard let l = cholesky() else { return nil }
        let (c00, c10) = Matrix2.solve(l, 1, 0)
        let (c01, c11) = Matrix2.solve(l, 0, 1)
        let v = 0.5 * (c10 + c01)
        return Matrix2(a00: c00, a01: v, a10: v, a11: c11)
    }

    /// `Matrix.symmetrized`.
    var symmetrized: Matrix2 {
        let v = 0.5 * (a10 + a01)
        return Matrix2(a00: a00, a01: v, a10: v, a11: a11)
    }

    /// Every entry times `s`.
    static func * (s: Double, m: Matrix2) -> Matrix2 {
        Matrix2(a00: s * m.a00, a01: s * m.a01, a10: s * m.a10, a11: s * m.a11)
    }

    var matrix: Matrix { Matrix(rows: 2, columns: 2, entries: [a00, a01, a10, a11]) }
}
