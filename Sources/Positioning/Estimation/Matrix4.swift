/// A 4 x 4 matrix held in place (row-major, as `Matrix` stores it): the Kalman filter's state covariance, which
/// every model predicts, mixes, updates and truncates at every fix. In a `Matrix` each of those steps allocated
/// its entries on the heap; here they live in the filter. `matrix` converts for the general algebra.
public struct Matrix4: Sendable, Hashable {
    /// The 16 entries, row-major: a homogeneous tuple, whose memory is its elements' (Double's).
    private var storage: (Double, Double, Double, Double, Double, Double, Double, Double,
                          Double, Double, Double, Double, Double, Double, Double, Double)

    /// Zeros.
    public init() { storage = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) }

    /// A 4 x 4 `Matrix`'s entries.
    public init(_ m: Matrix) {
        precondition(m.rows == 4 && m.columns == 4, "Matrix4 from a \(m.rows)x\(m.columns) matrix")
        self.init()
        withEntries { e in for k in 0..<16 { e[k] = m.entries[k] } }
    }

    /// Entry at row i, column j.
    public subscript(i: Int, j: Int) -> Double {
        get {
            precondition((0..<4).contains(i) && (0..<4).contains(j), "Matrix4 index (\(i), \(j))")
            return withUnsafeBytes(of: storage) { $0.load(fromByteOffset: 8 * (4 * i + j), as: Double.self) }
        }
        set {
            precondition((0..<4).contains(i) && (0..<4).contains(j), "Matrix4 index (\(i), \(j))")
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: newValue, toByteOffset: 8 * (4 * i + j), as: Double.self) }
        }
    }

    /// The entries, row-major, as an array.
    public var entries: [Double] {
        withUnsafeBytes(of: storage) {
            Array(UnsafeBufferPointer(start: $0.baseAddress!.assumingMemoryBound(to: Double.self), count: 16))
        }
    }

    /// As a `Matrix`.
    public var matrix: Matrix { Matrix(rows: 4, columns: 4, entries: entries) }

    /// Makes the matrix its symmetric part, (A + Aᵀ) / 2, as `Matrix.symmetrized` computes it, in place.
    mutating func symmetrize() {
        withEntries { e in
            for i in 0..<4 {
                for j in 0..<i {
                    let v = 0.5 * (e[4 * i + j] + e[4 * j + i])
                    e[4 * i + j] = v
                    e[4 * j + i] = v
                }
            }
        }
    }

    /// Runs `body` on the 16 entries in place (row-major).
    @inline(__always)
    mutating func withEntries<R>(_ body: (UnsafeMutableBufferPointer<Double>) -> R) -> R {
        withUnsafeMutableBytes(of: &storage) { raw in
            body(UnsafeMutableBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: Double.self), count: 16))
        }
    }

    public static func == (a: Matrix4, b: Matrix4) -> Bool { a.entries == b.entries }

    public func hash(into hasher: inout Hasher) { hasher.combine(entries) }
}
