import BlueDotCore
import Foundation
@testable import Positioning

/// The seeded generator that makes every simulated test reproducible.
typealias SeededGenerator = SplitMix64

/// Chi-square quantile by the Wilson-Hilferty approximation (accurate to about 1% for k >= 4).
func chiSquareQuantile(dof k: Double, z: Double) -> Double {
    let a = 2 / (9 * k)
    let c = 1 - a + z * a.squareRoot()
    return k * c * c * c
}

/// A square room with anchors near its walls, the geometry most tests use.
func testVenue(anchorCount: Int = 8, size: Double = 20, height: Double = 2.5,
               model: PathLossModel = PathLossModel(measuredPowerDBm: -60, pathLossExponent: 2.2,
                                                    shadowingSigmaDB: 3)) -> Venue {
    var anchors: [Anchor] = []
    for i in 0..<anchorCount {
        let θ = 2 * Double.pi * Double(i) / Double(anchorCount)
        anchors.append(Anchor(id: "a\(i)", x: size / 2 + 0.45 * size * cos(θ), y: size / 2 + 0.45 * size * sin(θ),
                              z: height))
    }
    return Venue(name: "test", model: model, anchors: anchors,
                 bounds: Venue.Bounds(minX: 0, minY: 0, maxX: size, maxY: size))
}

/// Noisy (or, with sigma 0, exact) RSSI measurements of a point from every anchor of a venue.
func simulatedMeasurements(at x: Double, _ y: Double, venue: Venue, targetHeight: Double = 1.2,
                           noiseSigmaDB: Double, using rng: inout SeededGenerator) -> [RSSIMeasurement] {
    venue.anchors.map { a in
        let model = a.model(default: venue.model)
        var m = RSSIMeasurement(anchorX: a.x, anchorY: a.y, heightDifferenceMeters: a.z - targetHeight,
                                model: model, rssiDBm: 0, sigmaDB: model.shadowingSigmaDB)
        m.rssiDBm = m.predictedRSSIDBm(x: x, y: y) + noiseSigmaDB * rng.gaussian()
        return m
    }
}
