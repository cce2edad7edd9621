import CalibrationKit
import Foundation
import Positioning
import Testing

/// The bound is attainable where it should be: with many packets per anchor (high SNR) the maximum-likelihood
/// estimate is efficient, so its RMS horizontal error approaches the CRLB (Kay 1993, §7.5).
@Suite struct CRLBMonteCarloTests {
    /// 4 anchors at the corners of a 10 m square (z 2.5 m), target at (3, 4, 1.2), σ = 4 dB, k = 50 packets per
    /// anchor averaged (so the bound is CRLB(one packet) / √k); 400 seeded trials of Gauss-Newton ML from the
    /// truth: RMS error within ±15 % of the bound (the Monte Carlo RMS itself has ~3.5 % standard error).
    @Test func maximumLikelihoodReachesTheBound() {
        let sigma = 4.0, k = 50.0, h = 1.2
        let model = PathLossModel(measuredPowerDBm: -59, pathLossExponent: 2, shadowingSigmaDB: sigma)
        let anchors = [(0.0, 0.0), (10, 0), (10, 10), (0, 10)].enumerated().map { i, p in
            PlanAnchor(id: "c\(i)", x: p.0, y: p.1, z: 2.5, model: model)
        }
        let truth = SIMD2(3.0, 4.0)
        var f = FisherInformation()
        for a in anchors { f.add(a, x: truth.x, y: truth.y, height: h) }
        let bound = f.crlbMeters! / k.squareRoot()
        var rng = Xoshiro256StarStar(seed: 7)
        var sumSquares = 0.0
        let trials = 400
        for _ in 0..<trials {
            // Averaged RSSI per anchor: the mean plus N(0, σ²/k).
            let y = anchors.map { a in
                let d = ((truth.x - a.x) * (truth.x - a.x) + (truth.y - a.y) * (truth.y - a.y)
                    + (h - a.z) * (h - a.z)).squareRoot()
                return a.model.rssiDBm(atDistanceMeters: d) + sigma / k.squareRoot() * gaussian(&rng)
            }
            var p = truth
            for _ in 0..<20 {
                // Gauss-Newton on r = y − μ(p): (HᵀH) δ = Hᵀ r with H = ∂μ/∂p (equal weights).
                var a11 = 0.0, a12 = 0.0, a22 = 0.0, b1 = 0.0, b2 = 0.0
                for (i, a) in anchors.enumerated() {
                    let dx = p.x - a.x, dy = p.y - a.y, dz = h - a.z
                    let d2 = dx * dx + dy * dy + dz * dz
                    let mu = a.model.rssiDBm(atDistanceMeters: d2.squareRoot())
                    let g = -10 * a.model.pathLossExponent / log(10.0) / d2
                    let hx = g * dx, hy = g * dy, r = y[i] - mu
                    a11 += hx * hx; a12 += hx * hy; a22 += hy * hy
                    b1 += hx * r; b2 += hy * r
                }
                let det = a11 * a22 - a12 * a12
                p += SIMD2((a22 * b1 - a12 * b2) / det, (a11 * b2 - a12 * b1) / det)
            }
            let e = p - truth
            sumSquares += e.x * e.x + e.y * e.y
        }
        let rms = (sumSquares / Double(trials)).squareRoot()
        print(String(format: "ML RMS %.3f m vs CRLB %.3f m (ratio %.3f)", rms, bound, rms / bound))
        #expect(abs(rms / bound - 1) <= 0.15)
    }

    /// A standard normal draw (Box-Muller).
    private func gaussian(_ rng: inout Xoshiro256StarStar) -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &rng), u2 = Double.random(in: 0..<1, using: &rng)
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}
