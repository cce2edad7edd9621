import FoundationEssentials

extension ConstantVelocityKalman {
    /// The outcome of a direct RSSI update.
    public struct RSSIUpdate: Sendable {
        /// Measurements used (after gating).
        public var used: Int
        /// Measurements rejected by the innovation gate.
        public var gated: Int
        /// Sum of the normalized innovations squared of the used measurements at the prediction.
        public var nis: Double
        /// Each measurement's normalized innovation squared νᵢ²/Sᵢ at the prediction, gated or not.
        public var terms: [Double] = []
    }

    /// Updates directly on the RSSI of each anchor heard (iterated extended Kalman update, robust).
    ///
    /// Each measurement is first gated on its own normalized innovation at the prediction,
    /// `νᵢ² / (gᵢᵀ P gᵢ + 1) > gate` (residuals already in sigmas), as long as at least `minimumKept` remain;
    /// then the MAP problem with the prediction as prior is solved by `PositionSolver` (Gauss-Newton with
    /// Huber weights, i.e. the iterated EKF of Bell and Cathey 1993), which also gives the posterior
    /// covariance `(P⁻¹ + Σ wᵢ Hᵢᵀ Hᵢ)⁻¹`. The objective is not convex: with `alternativeStart` (a position,
    /// e.g. the anchors' RSSI-weighted centroid) it is also solved from there and the lower optimum kept, so
    /// that the filter can leave a local minimum near a wrong prediction.
    @discardableResult
    public mutating func update(rssi measurements: [RSSIMeasurement], solver: PositionSolver, gate: Double,
                                minimumKept: Int = 3, alternativeStart: (x: Double, y: Double)? = nil)
        -> RSSIUpdate {
        guard !measurements.isEmpty, let Λ = P.matrix.inverseSPD() else {
            return RSSIUpdate(used: 0, gated: 0, nis: 0, terms: [])
        }
        var nis: [Double] = []
        nis.reserveCapacity(measurements.count)
        for z in measurements {
            let (r, gx, gy) = z.linearize(x: x[0], y: x[1])
            let s = gx * gx * P[0, 0] + 2 * gx * gy * P[0, 1] + gy * gy * P[1, 1] + 1
            nis.append(r * r / s)
        }
        var kept = measurements.indices.filter { nis[$0] <= gate }
        if kept.count < min(minimumKept, measurements.count) {
            // Too few pass: keep the least surprising ones rather than flying blind.
            kept = measurements.indices.sorted { nis[$0] < nis[$1] }
                .prefix(min(minimumKept, measurements.count)).sorted()
        }
        let used = kept.map { measurements[$0] }
        let mean = [x[0], x[1], x[2], x[3]]
        var solution = solver.solve(used, priorMean: mean, priorInformation: Λ)
        if let start = alternativeStart {
            var y = mean
            y[0] = start.x
            y[1] = start.y
            let other = solver.solve(used, priorMean: mean, priorInformation: Λ, start: y)
            if other.cost < solution.cost { solution = other }
        }
        x = SIMD4(solution.state)
        P = Matrix4(solution.covariance)
        return RSSIUpdate(used: used.count, gated: measurements.count - used.count,
                          nis: kept.reduce(0) { $0 + nis[$1] }, terms: nis)
    }
}
