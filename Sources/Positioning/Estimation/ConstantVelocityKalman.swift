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
    public var x: [Double]
    /// The state covariance.
    public var P: Matrix
    /// Acceleration spectral density q, m²/s³.
    public var accelerationNoise: Double

    /// Creates a filter at a position with a position covariance and a velocity standard deviation.
    public init(x: Double, y: Double, positionCovariance: Matrix, velocitySigma: Double, accelerationNoise: Double) {
        self.x = [x, y, 0, 0]
        var P = Matrix(rows: 4, columns: 4)
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
        P.entries.withUnsafeMutableBufferPointer { e in
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
            // Symmetric against rounding: (M + Mᵀ) / 2.
            for i in 0..<4 {
                for j in 0..<i {
                    let v = 0.5 * (e[4 * i + j] + e[4 * j + i])
                    e[4 * i + j] = v
                    e[4 * j + i] = v
                }
            }
        }
    }

    /// Shrinks the velocity toward zero (and its covariance with it) by a factor in [0, 1].
    ///
    /// Used when the target has not been heard for a while: a walker does not keep a constant velocity
    /// through a gap, so the last velocity should not carry the estimate away.
    public mutating func dampVelocity(by factor: Double) {
        let D = Matrix.diagonal([1, 1, factor, factor])
        x[2] *= factor
        x[3] *= factor
        P = (D * P * D.transposed).symmetrized
    }

    /// Linear update with a position measurement z and its covariance R (Joseph form).
    ///
    /// `S = H P Hᵀ + R`, `K = P Hᵀ S⁻¹`, `x ← x + K (z − H x)`, `P ← (I − K H) P (I − K H)ᵀ + K R Kᵀ`
    /// (Bar-Shalom et al. §5.2.3). Returns the normalized innovation squared `νᵀ S⁻¹ ν`.
    @discardableResult
    public mutating func update(position z: [Double], covariance R: Matrix) -> Double {
        let H = Matrix(rows: 2, columns: 4, entries: [1, 0, 0, 0, 0, 1, 0, 0])
        let ν = [z[0] - x[0], z[1] - x[1]]
        let S = (H * P * H.transposed + R).symmetrized
        guard let Sinv = S.inverseSPD() else { return .infinity }
        let K = P * H.transposed * Sinv
        let Kν = K * ν
        for i in 0..<4 { x[i] += Kν[i] }
        let IKH = Matrix.identity(4) - K * H
        P = (IKH * P * IKH.transposed + K * R * K.transposed).symmetrized
        let Sν = Sinv * ν
        return ν[0] * Sν[0] + ν[1] * Sν[1]
    }
}
