/// A fixed-lag smoother of one target's fixes, for the outputs that may lag (its room, and from the room the history's
/// room changes and Home Assistant's room sensor): the position `lagSeconds` ago, estimated from the fixes before
/// *and after* it, while the live fix stays causal.
///
/// Each axis is a constant-velocity Kalman filter (white acceleration of spectral density `accelerationDensity`,
/// m²/s³) run forward over the fixes of the lag and the one before it, each fix a measurement of position
/// with the standard deviation of its 68% radius, then a Rauch–Tung–Striebel pass backwards (Rauch, Tung and
/// Striebel 1965; Särkkä, "Bayesian Filtering and Smoothing", 2013, ch. 8). The window is a few fixes, so a
/// smoothed position costs a few dozen multiplications.
public struct FixedLagSmoother: Sendable, Hashable {
    /// How far behind the newest fix the smoothed position is, seconds.
    public let lagSeconds: Double
    /// The white-acceleration spectral density of the motion model, m²/s³: about a walker's changes of pace.
    public let accelerationDensity: Double
    /// The fixes held: time, position and the standard deviation of each axis.
    private var fixes: [Sample] = []

    private struct Sample: Sendable, Hashable {
        var t: Double, x: Double, y: Double, sigma: Double
    }

    /// A smoother `lagSeconds` behind the newest fix.
    public init(lagSeconds: Double, accelerationDensity: Double = 0.5) {
        self.lagSeconds = lagSeconds
        self.accelerationDensity = accelerationDensity
    }

    /// Takes a current fix at time `t` with a 68% radius (metres); fixes must come in time order.
    public mutating func add(t: Double, x: Double, y: Double, radius68: Double) {
        let sigma = max(radius68, 1e-3) / RoomMap.radius68PerSigma
        if let last = fixes.last, t <= last.t { fixes.removeAll { $0.t >= t } }
        fixes.append(Sample(t: t, x: x, y: y, sigma: sigma))
        // Keep the fixes of the lag and one before it. A window of twice the lag was tried on the visible sets: better
        // on UJI's standing targets by up to 1.7 points, worse on BOUN's straight_02 walk by 11.
        while fixes.count > 2, fixes[1].t <= t - lagSeconds { fixes.removeFirst() }
    }

    /// Forgets every fix (a target lost).
    public mutating func reset() { fixes.removeAll() }

    /// True when it holds no fix.
    public var isEmpty: Bool { fixes.isEmpty }

    /// The smoothed position and its 68% radius at the held fix nearest to `lagSeconds` before the newest, and that
    /// fix's time; nil with no fix held.
    public func smoothed() -> (t: Double, x: Double, y: Double, radius68: Double)? {
        guard let newest = fixes.last else { return nil }
        let target = newest.t - lagSeconds
        let k = fixes.indices.min { abs(fixes[$0].t - target) < abs(fixes[$1].t - target) } ?? fixes.count - 1
        return smoothed(at: k)
    }

    /// The smoothed positions, 68% radii and times of the held fixes after time `t`, oldest first: what a room
    /// decided `lagSeconds` behind has not seen yet when no fix will follow.
    public func smoothed(after t: Double) -> [(t: Double, x: Double, y: Double, radius68: Double)] {
        fixes.indices.filter { fixes[$0].t > t }.map(smoothed(at:))
    }

    /// Held fix `k`'s time, smoothed position and 68% radius.
    private func smoothed(at k: Int) -> (t: Double, x: Double, y: Double, radius68: Double) {
        let x = smooth(\.x, at: k), y = smooth(\.y, at: k)
        let sigma = ((x.variance + y.variance) / 2).squareRoot()
        return (fixes[k].t, x.value, y.value, sigma * RoomMap.radius68PerSigma)
    }

    /// One axis: forward Kalman over the held fixes, RTS backwards to fix `k`.
    private func smooth(_ axis: KeyPath<Sample, Double>, at k: Int) -> (value: Double, variance: Double) {
        // Forward: filtered (m, P) and predicted (mp, Pp) per fix; P is [[a, b], [b, c]].
        var filtered: [(m: (Double, Double), P: (Double, Double, Double))] = []
        var predicted: [(m: (Double, Double), P: (Double, Double, Double))] = []
        let q = accelerationDensity
        for (i, f) in fixes.enumerated() {
            var m: (Double, Double), P: (Double, Double, Double)
            if i == 0 {
                m = (f[keyPath: axis], 0)
                P = (f.sigma * f.sigma, 0, 4)  // a walker's speed: within 2 m/s
            } else {
                let dt = f.t - fixes[i - 1].t
                let (m0, P0) = filtered[i - 1]
                m = (m0.0 + dt * m0.1, m0.1)
                P = (P0.0 + 2 * dt * P0.1 + dt * dt * P0.2 + q * dt * dt * dt / 3,
                     P0.1 + dt * P0.2 + q * dt * dt / 2,
                     P0.2 + q * dt)
            }
            predicted.append((m, P))
            if i > 0 {
                let r = f.sigma * f.sigma
                let s = P.0 + r
                let gain = (P.0 / s, P.1 / s)
                let innovation = f[keyPath: axis] - m.0
                m = (m.0 + gain.0 * innovation, m.1 + gain.1 * innovation)
                P = ((1 - gain.0) * P.0, (1 - gain.0) * P.1, P.2 - gain.1 * P.1)
            }
            filtered.append((m, P))
        }
        // Backward (RTS): ms = m + G (ms' − mp'), Ps = P + G (Ps' − Pp') Gᵀ, G = P Fᵀ Pp'⁻¹.
        var ms = filtered[filtered.count - 1].m, Ps = filtered[filtered.count - 1].P
        var i = filtered.count - 2
        while i >= k {
            let (m, P) = filtered[i]
            let (mp, Pp) = predicted[i + 1]
            let dt = fixes[i + 1].t - fixes[i].t
            // P Fᵀ with F = [[1, dt], [0, 1]]: [[a + dt b, b], [b + dt c, c]].
            let pf = (P.0 + dt * P.1, P.1, P.1 + dt * P.2, P.2)
            let det = Pp.0 * Pp.2 - Pp.1 * Pp.1
            guard det > 1e-12 else { return (m.0, P.0) }
            let inv = (Pp.2 / det, -Pp.1 / det, Pp.0 / det)
            let G = (pf.0 * inv.0 + pf.1 * inv.1, pf.0 * inv.1 + pf.1 * inv.2,
                     pf.2 * inv.0 + pf.3 * inv.1, pf.2 * inv.1 + pf.3 * inv.2)
            let d = (ms.0 - mp.0, ms.1 - mp.1)
            let D = (Ps.0 - Pp.0, Ps.1 - Pp.1, Ps.2 - Pp.2)
            let newM = (m.0 + G.0 * d.0 + G.1 * d.1, m.1 + G.2 * d.0 + G.3 * d.1)
            // G D Gᵀ, D symmetric.
            let gd = (G.0 * D.0 + G.1 * D.1, G.0 * D.1 + G.1 * D.2, G.2 * D.0 + G.3 * D.1, G.2 * D.1 + G.3 * D.2)
            let newP = (P.0 + gd.0 * G.0 + gd.1 * G.1, P.1 + gd.0 * G.2 + gd.1 * G.3, P.2 + gd.2 * G.2 + gd.3 * G.3)
            ms = newM
            Ps = newP
            i -= 1
        }
        return (ms.0, max(Ps.0, 0))
    }
}
