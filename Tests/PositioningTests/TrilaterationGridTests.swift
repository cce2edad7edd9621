import Foundation
import Testing
@testable import Positioning

@Suite struct GridPosteriorTests {
    /// One anchor in the middle of a large room: the posterior is a ring, its mean near the anchor, its
    /// covariance about the ring's (radius² / 2 per axis), and the 68% radius covers a ring point.
    @Test func oneAnchorGivesTheRingsMeanAndSpread() {
        let bounds = Venue.Bounds(minX: 0, minY: 0, maxX: 40, maxY: 40)
        let model = PathLossModel(measuredPowerDBm: -60, pathLossExponent: 2, shadowingSigmaDB: 1)
        var z = RSSIMeasurement(anchorX: 20, anchorY: 20, model: model, rssiDBm: 0, sigmaDB: 1)
        z.rssiDBm = model.rssiDBm(atDistanceMeters: 5)
        let g = GridPosterior(bounds: bounds, cellMeters: 0.2).estimate([z])!
        #expect(abs(g.x - 20) < 0.05 && abs(g.y - 20) < 0.05)
        // Ring of radius 5: variance 12.5 per axis (plus the ring's own width), radius68 above 5.
        #expect(abs(g.covariance[0, 0] - 12.5) < 1.5 && abs(g.covariance[0, 1]) < 0.1)
        #expect(AccuracyRadius.radius68(g.covariance) > 5)
    }

    /// Many anchors: the grid mean agrees with the Gauss-Newton optimum within 0.2 m (mean and mode of a
    /// slightly skewed posterior differ by about 0.1 m at 0.5 dB).
    @Test func agreesWithTheSolverWhenWellPosed() {
        var rng = SeededGenerator(seed: 14)
        let venue = testVenue(anchorCount: 8)
        var solver = Trilaterator(bounds: venue.bounds, anchors: venue.anchors, loss: .squared)
        solver.priorVariance = [1e8, 1e8]
        let grid = GridPosterior(bounds: venue.bounds!, cellMeters: 0.1, loss: .squared)
        for _ in 0..<5 {
            let x = Double.random(in: 6...14, using: &rng), y = Double.random(in: 6...14, using: &rng)
            let z = simulatedMeasurements(at: x, y, venue: venue, noiseSigmaDB: 0.5, using: &rng)
            let f = solver.locate(z)!, g = grid.estimate(z)!
            #expect(abs(f.x - g.x) < 0.2 && abs(f.y - g.y) < 0.2, "solver (\(f.x), \(f.y)) grid (\(g.x), \(g.y))")
            #expect(abs(f.covariance[0, 0] - g.covariance[0, 0]) < 0.3 * f.covariance[0, 0])
        }
    }

    /// A posterior symmetric about a point (one anchor in the middle of a large room): its spatial median is
    /// that point, like its mean, within 0.05 m.
    @Test func spatialMedianOfASymmetricPosteriorIsItsCentre() {
        let bounds = Venue.Bounds(minX: 0, minY: 0, maxX: 40, maxY: 40)
        let model = PathLossModel(measuredPowerDBm: -60, pathLossExponent: 2, shadowingSigmaDB: 1)
        var z = RSSIMeasurement(anchorX: 20, anchorY: 20, model: model, rssiDBm: 0, sigmaDB: 1)
        z.rssiDBm = model.rssiDBm(atDistanceMeters: 5)
        var grid = GridPosterior(bounds: bounds, cellMeters: 0.2)
        grid.usesSpatialMedian = true
        let g = grid.estimate([z])!
        #expect(abs(g.x - 20) < 0.05 && abs(g.y - 20) < 0.05)
    }

    /// The spatial median is the Bayes estimate under distance loss: with targets drawn from the grid's own
    /// prior (uniform over the room) and noise drawn from its own model (Gaussian, squared loss), its mean
    /// distance error over 300 draws is below the posterior mean's (two anchors, skewed arcs; seed 21).
    @Test func spatialMedianHasTheSmallerMeanDistanceError() {
        var rng = SeededGenerator(seed: 21)
        let venue = testVenue(anchorCount: 8)
        var mean = GridPosterior(bounds: venue.bounds!, cellMeters: 0.25, loss: .squared)
        var median = mean
        mean.usesSpatialMedian = false
        median.usesSpatialMedian = true
        var errorMean = 0.0, errorMedian = 0.0
        for _ in 0..<300 {
            let x = Double.random(in: 0...20, using: &rng), y = Double.random(in: 0...20, using: &rng)
            let z = Array(simulatedMeasurements(at: x, y, venue: venue, noiseSigmaDB: 3, using: &rng).prefix(2))
            let a = mean.estimate(z)!, b = median.estimate(z)!
            errorMean += hypot(a.x - x, a.y - y) / 300
            errorMedian += hypot(b.x - x, b.y - y) / 300
        }
        #expect(errorMedian < errorMean, "spatial median \(errorMedian) m, mean \(errorMean) m")
    }
}
