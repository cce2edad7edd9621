import FoundationEssentials
import Glibc

/// A Kalman filter over horizontal position and velocity, `x = [pₓ, p_y, vₓ, v_y]`, with constant-velocity
/// dynamics driven by white acceleration noise.
///
/// Bar-Shalom, Li and Kirubarajan, *Estimation with Applications to Tracking and Navigation* (2001), §6.2.2
/// (continuous white-noise acceleration model): per axis `F = [[1, Δt], [0, 1]]` and
/// `Q = q [[Δt³/3, Δt²/2], [Δt²/2, Δt]]` with q the acceleration spectral density (m²/s³).
/// Two measurement updates: a position fix (`update(position:covariance:)`, linear, Joseph form) and the
/// RSSI of each anchor directly (`update(rssi:...)` in `ConstantVelocityKalman+RSSI.swift`).
public struct ConstantVelocityKalman: Sendable {
    /// The state `[pₓ, p_y, vₓ, v_y]`.
    public var x: SIMD4<Double>
    /// The state covariance (held in place: `P.matrix` for the general algebra).
    public var P: Matrix4
    /// Acceleration spectral density q, m²/s³.
    public var accelerationNoise: Double

    /// Creates a filter at a position with a position covariance and a velocity standard deviation.
    public init(x: Double, y: Double, positionCovariance: Matrix, velocitySigma: Double, accelerationNoise: Double) {
        self.x = SIMD4(x, y, 0, 0)
        var P = Matrix4()
        P[0, 0] = positionCovariance[0, 0]
        P[0, 1] = positionCovariance[0, 1]
        P[1, 0] = positionCovariance[1, 0]
        P[1, 1] = positionCovariance[1, 1]
        P[2, 2] = velocitySigma * velocitySigma
        P[3, 3] = velocitySigma * velocitySigma
        self.P = P
        self.accelerationNoise = accelerationNoise
    }

    /// Speed, m/s.
    public var speed: Double { (x[2] * x[2] + x[3] * x[3]).squareRoot() }

    /// Course, degrees clockwise from +y in [0, 360).
    public var courseDegrees: Double {
        let c = atan2(x[2], x[3]) * 180 / Double.pi
        return c < 0 ? c + 360 : c
    }

    /// The horizontal position covariance block.
    public var positionCovariance: Matrix {
        Matrix(rows: 2, columns: 2, entries: [P[0, 0], P[0, 1], P[1, 0], P[1, 1]])
    }

    /// Propagates the state by Δt seconds: `x ← F x`, `P ← F P Fᵀ + Q`.
    ///
    /// Written out for this F (`F = [[I, Δt I], [0, I]]`), in place: the same sums in the same order as the
    /// general matrix products give, without their half-dozen allocations (this runs for every model at every
    /// fix, and between fixes).
    public mutating func predict(dt: Double) {
        guard dt > 0 else { return }
        let q = accelerationNoise
        let a = q * dt * dt * dt / 3, b = q * dt * dt / 2, c = q * dt
        x[0] += dt * x[2]
        x[1] += dt * x[3]
        P.withEntries { e in
            // A = F P: rows 0 and 1 gain Δt times rows 2 and 3.
            for j in 0..<4 {
                e[j] += dt * e[8 + j]
                e[4 + j] += dt * e[12 + j]
            }
            // F P Fᵀ = A Fᵀ: columns 0 and 1 gain Δt times columns 2 and 3.
            for i in 0..<4 {
                e[4 * i] += e[4 * i + 2] * dt
                e[4 * i + 1] += e[4 * i + 3] * dt
            }
            e[0] += a; e[2] += b; e[5] += a; e[7] += b
            e[8] += b; e[10] += c; e[13] += b; e[15] += c
        }
        // Symmetric against rounding: (M + Mᵀ) / 2.
        P.symmetrize()
    }

    /// Shrinks the velocity toward zero (and its covariance with it) by a factor in [0, 1].
    ///
    /// Used when the target has not been heard for a while: a walker does not keep a constant velocity
    /// through a gap, so the last velocity should not carry the estimate away.
    public mutating func dampVelocity(by factor: Double) {
        let D = Matrix.diagonal([1, 1, factor, factor])
        x[2] *= factor
        x[3] *= factor
        P = Matrix4((D * P.matrix * D.transposed).symmetrized)
    }

    /// Linear update with a position measurement z and its covariance R (Joseph form).
    ///
    /// `S = H P Hᵀ + R`, `K = P Hᵀ S⁻¹`, `x ← x + K (z − H x)`, `P ← (I − K H) P (I − K H)ᵀ + K R Kᵀ`
    /// (Bar-Shalom et al. §5.2.3). Returns the normalized innovation squared `νᵀ S⁻¹ ν`.
    @discardableResult
    public mutating func update(position z: [Double], covariance R: Matrix) -> Double {
        update(x: z[0], y: z[1], covariance: Matrix2(R))
    }

    /// `update(position:covariance:)` written out for H = [I 0], in place: the same sums in the same order as the
    /// general products (which skip zero factors) give, without a heap matrix for each of them. This runs for every
    /// model at every fix.
    mutating func update(x z0: Double, y z1: Double, covariance R: Matrix2) -> Double {
        let ν0 = z0 - x[0], ν1 = z1 - x[1]
        // S = H P Hᵀ + R: H P Hᵀ is P's position block.
        let S = Matrix2(a00: P[0, 0] + R.a00, a01: P[0, 1] + R.a01, a10: P[1, 0] + R.a10, a11: P[1, 1] + R.a11)
        guard let Si = S.symmetrized.inverse() else { return .infinity }
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 40) { t in
            // K = P Hᵀ S⁻¹ (4 x 2, row-major): P Hᵀ is P's first two columns.
            let K = UnsafeMutableBufferPointer(rebasing: t[0..<8])
            for i in 0..<4 {
                let (pi0, pi1) = (P[i, 0], P[i, 1])
                var k0 = 0.0, k1 = 0.0
                if pi0 != 0 { k0 += pi0 * Si.a00; k1 += pi0 * Si.a01 }
                if pi1 != 0 { k0 += pi1 * Si.a10; k1 += pi1 * Si.a11 }
                K[2 * i] = k0
                K[2 * i + 1] = k1
            }
            for i in 0..<4 {
                var kν = 0.0
                kν += K[2 * i] * ν0
                kν += K[2 * i + 1] * ν1
                x[i] += kν
            }
            // I − K H: its first two columns are the identity's less K, the others the identity's.
            func ikh(_ i: Int, _ j: Int) -> Double {
                let identity = i == j ? 1.0 : 0.0
                return j < 2 ? identity - K[2 * i + j] : identity
            }
            let A = UnsafeMutableBufferPointer(rebasing: t[8..<24])
            let B = UnsafeMutableBufferPointer(rebasing: t[24..<40])
            P.withEntries { p in
                // A = (I − K H) P, then B = A (I − K H)ᵀ, each summed over its non-zero factors in order.
                for i in 0..<4 {
                    for j in 0..<4 { A[4 * i + j] = 0 }
                    for c in 0..<4 {
                        let f = ikh(i, c)
                        if f == 0 { continue }
                        for j in 0..<4 { A[4 * i + j] += f * p[4 * c + j] }
                    }
                }
                for i in 0..<4 {
                    for j in 0..<4 { B[4 * i + j] = 0 }
                    for c in 0..<4 {
                        let f = A[4 * i + c]
                        if f == 0 { continue }
                        for j in 0..<4 { B[4 * i + j] += f * ikh(j, c) }
                    }
                }
                // P = B + K R Kᵀ (then symmetric against rounding).
                for i in 0..<4 {
                    var kr0 = 0.0, kr1 = 0.0
                    let (ki0, ki1) = (K[2 * i], K[2 * i + 1])
                    if ki0 != 0 { kr0 += ki0 * R.a00; kr1 += ki0 * R.a01 }
                    if ki1 != 0 { kr0 += ki1 * R.a10; kr1 += ki1 * R.a11 }
                    for j in 0..<4 {
                        var krk = 0.0
                        if kr0 != 0 { krk += kr0 * K[2 * j] }
                        if kr1 != 0 { krk += kr1 * K[2 * j + 1] }
                        p[4 * i + j] = B[4 * i + j] + krk
                    }
                }
            }
            P.symmetrize()
            let (s0, s1) = Si.times(ν0, ν1)
            return ν0 * s0 + ν1 * s1
        }
    }
}
