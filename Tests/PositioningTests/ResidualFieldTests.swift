import CalibrationRuns
import Formats
import Foundation
import Testing
@testable import Positioning

@Suite struct ResidualFieldTests {
    /// A known smooth bias, dB.
    static func bias(_ x: Double, _ y: Double) -> Double { 3 * cos(2 * Double.pi * x / 12) * sin(2 * Double.pi * y / 12) }

    /// A survey of the left strip x ∈ [0, 8] of a 20 m venue whose four anchors' RSSI carries `bias` plus 3 dB
    /// jitter (2000 packets each).
    @Test func recoversSyntheticBiasAndShrinksToZeroFarFromData() {
        var rng = SeededGenerator(seed: 81)
        let venue = testVenue(anchorCount: 4)
        var samples: [CalibrationSample] = []
        for a in venue.anchors {
            let model = a.model(default: venue.model)
            for _ in 0..<2000 {
                let x = Double.random(in: 0...8, using: &rng), y = Double.random(in: 0...20, using: &rng)
                let d = ((x - a.x) * (x - a.x) + (y - a.y) * (y - a.y) + (a.z - 1.2) * (a.z - 1.2)).squareRoot()
                let rssi = model.rssiDBm(atDistanceMeters: max(d, 1)) + Self.bias(x, y) + 3 * rng.gaussian()
                samples.append(CalibrationSample(anchor: a.id, rssiDBm: rssi, x: x, y: y, z: 1.2))
            }
        }
        var parameters = ResidualField.Parameters()
        parameters.lengthScaleMeters = 3
        parameters.priorSigmaDB = 3
        parameters.binSigmaDB = 1
        let field = ResidualField.fit(samples, venue: venue, parameters: parameters)
        #expect(field.layers.count == 4)
        for a in venue.anchors {
            let layer = field.layers[a.id]!
            // Inside the surveyed strip (away from its edges) the bias comes back within 0.8 dB RMS.
            var sum = 0.0, n = 0.0
            for x in stride(from: 1.0, through: 7.0, by: 0.5) {
                for y in stride(from: 1.0, through: 19.0, by: 0.5) {
                    let e = layer.evaluate(x: x, y: y).biasDB - Self.bias(x, y)
                    sum += e * e
                    n += 1
                }
            }
            #expect((sum / n).squareRoot() < 0.8, "\(a.id) RMS \((sum / n).squareRoot())")
            // Where the survey was, the field is sure of itself; 11 m (almost 4 ℓ) from it, it is back at the
            // prior: mean within 0.2 dB of 0, variance above 90% of τ².
            #expect(layer.evaluate(x: 4, y: 10).variance < 0.25 * 9)
            for y in stride(from: 0.0, through: 20.0, by: 2.5) {
                let far = layer.evaluate(x: 19.5, y: y)
                #expect(abs(far.biasDB) < 0.2, "\(a.id) far bias \(far.biasDB)")
                #expect(far.variance > 0.9 * 9, "\(a.id) far variance \(far.variance)")
            }
            // The survey's sigma around model plus field is about the jitter (3 dB ± 0.4).
            #expect(abs(layer.sigmaDB - 3) < 0.4, "\(a.id) sigma \(layer.sigmaDB)")
        }
    }

    /// With a field the measurement function is h(p) + b̂(p), its sigma √(σ² + v(p)), and the gradient of
    /// `linearize` is that of the predicted RSSI (finite differences, inside a cell).
    @Test func measurementWithFieldMatchesFiniteDifferences() {
        var bias: [Double] = [], variance: [Double] = []
        for j in 0..<5 {
            for i in 0..<5 {
                bias.append(Double(i) * 0.7 - Double(j * j) * 0.3)
                variance.append(1 + Double(i + j) * 0.2)
            }
        }
        let layer = ResidualField.Layer(originX: 0, originY: 0, step: 1, nx: 5, ny: 5, bias: bias,
                                        variance: variance, sigmaDB: 3)
        var z = RSSIMeasurement(anchorX: 0, anchorY: 0, heightDifferenceMeters: 1,
                                model: PathLossModel(measuredPowerDBm: -60, pathLossExponent: 2.2),
                                rssiDBm: -70, sigmaDB: 3)
        z.field = layer
        let (x, y) = (2.3, 1.6)
        let f = layer.evaluate(x: x, y: y)
        let s = (9 + f.variance).squareRoot()
        let plain = PathLossModel(measuredPowerDBm: -60, pathLossExponent: 2.2)
            .rssiDBm(atDistanceMeters: (x * x + y * y + 1).squareRoot())
        #expect(abs(z.predictedRSSIDBm(x: x, y: y) - (plain + f.biasDB)) < 1e-12)
        let (r, gx, gy) = z.linearize(x: x, y: y)
        #expect(abs(r - (-70 - plain - f.biasDB) / s) < 1e-12)
        #expect(abs(z.residual(x: x, y: y).sigmaDB - s) < 1e-12)
        let h = 1e-6
        let dx = (z.predictedRSSIDBm(x: x + h, y: y) - z.predictedRSSIDBm(x: x - h, y: y)) / (2 * h) / s
        let dy = (z.predictedRSSIDBm(x: x, y: y + h) - z.predictedRSSIDBm(x: x, y: y - h)) / (2 * h) / s
        #expect(abs(gx - dx) < 1e-6 && abs(gy - dy) < 1e-6, "\(gx) \(dx) \(gy) \(dy)")
        // Bilinear: exact at the nodes, held at the edge value outside the grid.
        #expect(abs(layer.evaluate(x: 3, y: 2).biasDB - bias[2 * 5 + 3]) < 1e-12)
        #expect(abs(layer.evaluate(x: 40, y: -3).biasDB - bias[4]) < 1e-12)
    }

    /// The survey calibration maps the residuals of every surveyed anchor unless asked not to.
    @Test func surveyCalibrationCarriesTheField() throws {
        let venue = try VenueLoader.load(path: Fixtures.path("boun-tetam.venue.json"))
        let survey = Fixtures.path("boun-straight_01-head200.survey.jsonl")
        let outcome = try SurveyCalibration.calibrate(venue: venue, surveys: [survey])
        let field = try #require(outcome.residualField)
        #expect(field.layers.count == outcome.result.anchors.count)
        for layer in field.layers.values {
            #expect(layer.bias.allSatisfy(\.isFinite) && layer.variance.allSatisfy { $0 >= 0 && $0 <= 4 + 1e-9 })
        }
        let none = try SurveyCalibration.calibrate(venue: venue, surveys: [survey], field: nil)
        #expect(none.residualField == nil)
    }

    /// A walk whose anchors carry a place-dependent bias (up to 5 dB): an engine given the field fitted on an
    /// earlier survey of the same walk (other noise) tracks better than the plain model; static scans ignore it.
    @Test func engineWithTheFieldTracksABiasedWalkBetter() {
        let venue = testVenue(anchorCount: 6)
        func biased(seed: UInt64) -> (observations: [Observation], truth: [TruthPoint]) {
            var walk = simulatedWalk(seconds: 96, venue: venue, seed: seed)
            for i in walk.observations.indices {
                let k = Double(venue.anchors.firstIndex { $0.id == walk.observations[i].anchor }!)
                let p = walk.truth[i]
                walk.observations[i].rssiDBm += 5 * sin(0.5 * p.x + k) * cos(0.4 * p.y + 0.7 * k)
            }
            return walk
        }
        let survey = biased(seed: 91)
        let samples = zip(survey.observations, survey.truth).map { o, p in
            CalibrationSample(anchor: o.anchor, rssiDBm: o.rssiDBm, x: p.x, y: p.y, z: 1.2)
        }
        // Hyperparameters of the simulated bias (RMS 2.5 dB, a few metres across, the same at every visit).
        var parameters = ResidualField.Parameters()
        parameters.priorSigmaDB = 3
        parameters.lengthScaleMeters = 3
        parameters.binSigmaDB = 1.5
        let field = ResidualField.fit(samples, venue: venue, parameters: parameters)
        let run = biased(seed: 92)
        var plain = EngineConfiguration.moving
        plain.targetHeightMeters = 1.2
        var withField = plain
        withField.residualField = field
        let before = Evaluator.evaluate(fixes: replay(run.observations, venue: venue, configuration: plain),
                                        truth: run.truth, scoring: .movingDefault)
        let after = Evaluator.evaluate(fixes: replay(run.observations, venue: venue, configuration: withField),
                                       truth: run.truth, scoring: .movingDefault)
        // The field removes much of the bias: the median error drops by at least 12% (seeded: 1.70 → 1.39 m).
        #expect(after.median! < 0.88 * before.median!, "median \(before.median!) -> \(after.median!)")
        var stationary = EngineConfiguration.stationary
        stationary.targetHeightMeters = 1.2
        let scans = replay(run.observations, venue: venue, configuration: stationary)
        stationary.residualField = field
        #expect(replay(run.observations, venue: venue, configuration: stationary) == scans)
    }
}
