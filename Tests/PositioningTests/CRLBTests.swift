import Foundation
import Testing
@testable import Positioning

/// Single-fix RMSE against the Cramér-Rao bound of RSSI positioning.
///
/// Patwari, Hero, Perkins, Correal and O'Dea, "Relative location estimation in wireless sensor networks",
/// IEEE TSP 51(8), 2003, §IV: with b = 10 n / (σ ln 10) the Fisher information of one RSSI about p is
/// `b² (p − a)(p − a)ᵀ / d⁴` (horizontal part of p − a, 3-D d), and the bound on the RMSE is √tr(F⁻¹).
@Suite struct CRLBTests {
    func crlbRMSE(x: Double, y: Double, venue: Venue, targetHeight: Double) -> Double {
        var F = Matrix(rows: 2, columns: 2)
        for a in venue.anchors {
            let m = a.model(default: venue.model)
            let b = 10 * m.pathLossExponent / (m.shadowingSigmaDB * M_LN10)
            let dx = x - a.x, dy = y - a.y, dz = a.z - targetHeight
            let d2 = dx * dx + dy * dy + dz * dz
            F[0, 0] += b * b * dx * dx / (d2 * d2)
            F[0, 1] += b * b * dx * dy / (d2 * d2)
            F[1, 1] += b * b * dy * dy / (d2 * d2)
        }
        F[1, 0] = F[0, 1]
        let C = F.inverseSPD()!
        return (C[0, 0] + C[1, 1]).squareRoot()
    }

    @Test(arguments: [(7.0, 9.0), (10.0, 10.0), (13.0, 6.0)])
    func singleFixRMSEWithinBound(point: (Double, Double)) {
        var rng = SeededGenerator(seed: 20)
        let model = PathLossModel(measuredPowerDBm: -60, pathLossExponent: 2.5, shadowingSigmaDB: 2)
        let venue = testVenue(anchorCount: 8, model: model)
        var solver = Trilaterator(bounds: nil, anchors: venue.anchors, loss: .squared)
        solver.priorVariance = [1e8, 1e8]
        let runs = 1000
        var sse = 0.0
        for _ in 0..<runs {
            let z = simulatedMeasurements(at: point.0, point.1, venue: venue, noiseSigmaDB: 2, using: &rng)
            let fix = solver.locate(z)!
            sse += (fix.x - point.0) * (fix.x - point.0) + (fix.y - point.1) * (fix.y - point.1)
        }
        let rmse = (sse / Double(runs)).squareRoot()
        let bound = crlbRMSE(x: point.0, y: point.1, venue: venue, targetHeight: 1.2)
        // The ML estimate should sit within 1.3 x the bound (and not below 0.9 x: that would be a broken test).
        #expect(rmse <= 1.3 * bound, "RMSE \(rmse) bound \(bound)")
        #expect(rmse >= 0.9 * bound, "RMSE \(rmse) bound \(bound)")
    }
}
