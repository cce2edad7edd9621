import Foundation
import Positioning

/// Looks for the horizontal anchor position at which an anchor's survey samples fit the log-distance model best.
///
/// Samples are first pooled per surveyed position (10 cm cells: mean RSSI, weight = count). For each candidate
/// position on a grid over the search area (the anchor keeps its height), the line `rssi = P₀ − n L`,
/// `L = 10 log10 d`, is fitted by weighted least squares (n clamped to the physical range, P₀ re-fitted), and
/// the weighted residual RMS is the score. A moved anchor shows as a best position far from the venue's whose
/// RMS is clearly lower than the venue position's.
struct AnchorShiftSearch: Sendable {
    /// Grid step, metres.
    var stepMeters: Double
    /// Physical range of the exponent.
    var exponentRange: ClosedRange<Double>
    /// Near-field distance clamp, metres.
    var minimumDistanceMeters: Double

    /// The best position, its distance from the venue's and its RMS ratio to the venue position's.
    struct Shift: Sendable, Hashable {
        var x: Double, y: Double, distanceMeters: Double, residualRatio: Double
    }

    /// One surveyed position with its mean RSSI.
    private struct Cell {
        var x: Double, y: Double, z: Double, rssi: Double, weight: Double
    }

    /// The best shift, or nil with fewer than `minimumPositions` distinct surveyed positions.
    func bestShift(of anchor: Anchor, samples: [CalibrationSample], area: Venue.Bounds,
                   minimumPositions: Int) -> Shift? {
        var sums: [SIMD3<Int>: (x: Double, y: Double, z: Double, rssi: Double, n: Double)] = [:]
        for s in samples {
            let key = SIMD3(Int((s.x * 10).rounded()), Int((s.y * 10).rounded()), Int((s.z * 10).rounded()))
            var e = sums[key] ?? (0, 0, 0, 0, 0)
            e.x += s.x; e.y += s.y; e.z += s.z; e.rssi += s.rssiDBm; e.n += 1
            sums[key] = e
        }
        guard sums.count >= minimumPositions else { return nil }
        let cells = sums.values.map { Cell(x: $0.x / $0.n, y: $0.y / $0.n, z: $0.z / $0.n, rssi: $0.rssi / $0.n,
                                           weight: $0.n) }
        let here = rms(cells, ax: anchor.x, ay: anchor.y, az: anchor.z)
        var best = (x: anchor.x, y: anchor.y, rms: here)
        let nx = Int(((area.maxX - area.minX) / stepMeters).rounded(.down))
        let ny = Int(((area.maxY - area.minY) / stepMeters).rounded(.down))
        for i in 0...max(nx, 0) {
            for j in 0...max(ny, 0) {
                let x = area.minX + Double(i) * stepMeters, y = area.minY + Double(j) * stepMeters
                let r = rms(cells, ax: x, ay: y, az: anchor.z)
                if r < best.rms { best = (x, y, r) }
            }
        }
        let distance = ((best.x - anchor.x) * (best.x - anchor.x) + (best.y - anchor.y) * (best.y - anchor.y))
            .squareRoot()
        return Shift(x: best.x, y: best.y, distanceMeters: distance, residualRatio: here > 0 ? best.rms / here : 1)
    }

    /// Weighted RMS of the residuals of the weighted least-squares line through the cells, anchor at (ax, ay, az).
    private func rms(_ cells: [Cell], ax: Double, ay: Double, az: Double) -> Double {
        // Normal equations of y = P₀ − n L with weights w: [Σw, −ΣwL; −ΣwL, ΣwL²] (P₀, n) = (Σwy, −ΣwLy).
        var sw = 0.0, sL = 0.0, sLL = 0.0, sy = 0.0, sLy = 0.0
        var L = [Double](repeating: 0, count: cells.count)
        for (k, c) in cells.enumerated() {
            let d = max(((c.x - ax) * (c.x - ax) + (c.y - ay) * (c.y - ay) + (c.z - az) * (c.z - az)).squareRoot(),
                        minimumDistanceMeters)
            L[k] = 10 * log10(d)
            sw += c.weight; sL += c.weight * L[k]; sLL += c.weight * L[k] * L[k]
            sy += c.weight * c.rssi; sLy += c.weight * L[k] * c.rssi
        }
        let det = sw * sLL - sL * sL
        var n = det > 1e-12 ? (sL * sy - sw * sLy) / det : 2
        n = min(max(n, exponentRange.lowerBound), exponentRange.upperBound)
        let p0 = (sy + n * sL) / sw
        var sse = 0.0
        for (k, c) in cells.enumerated() {
            let r = c.rssi - (p0 - n * L[k])
            sse += c.weight * r * r
        }
        return (sse / sw).squareRoot()
    }
}
