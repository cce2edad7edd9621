@testable import Formats
@testable import CalibrationRuns
import Foundation
import Testing
@testable import Positioning

/// The conformal radius calibration: its quantile, its bands, the venue's `radius` key, the engine applying it,
/// and the held-out replays it is computed from.
@Suite struct RadiusCalibrationTests {
    @Test func conformalQuantileTakesTheCeilingRank() {
        let scores = (1...99).map(Double.init).shuffled()
        // ⌈(99 + 1) 0.68⌉ = 68.
        #expect(RadiusCalibration.conformalQuantile(scores, probability: 0.68) == 68)
        // ⌈(4 + 1) 0.68⌉ = 4: the largest of four.
        #expect(RadiusCalibration.conformalQuantile([0.4, 0.1, 0.3, 0.2], probability: 0.68) == 0.4)
        // ⌈(2 + 1) 0.68⌉ = 3 > 2: the largest there is.
        #expect(RadiusCalibration.conformalQuantile([0.5, 0.7], probability: 0.68) == 0.7)
        #expect(RadiusCalibration.conformalQuantile([], probability: 0.68) == nil)
    }

    /// Thin bands merge into the band below; a fix takes the band of the most anchors it has reached.
    @Test func bandsMergeUntilEachIsThick() throws {
        var scores: [(anchors: Int, score: Double)] = []
        for i in 0..<250 { scores.append((2, Double(i) / 250)) }        // 0-2 anchors: scores 0 ..< 1
        for i in 0..<50 { scores.append((4, 5 + Double(i) / 50)) }      // 3-4: too few, merged into 0-2
        for i in 0..<300 { scores.append((9, 2 + Double(i) / 300)) }    // 8+: scores 2 ..< 3
        scores.append((1, .nan))
        let c = try #require(RadiusCalibration.conformal(scores: scores, probability: 0.68, minimumScores: 100))
        #expect(c.bands.map(\.minimumAnchors) == [0, 8])
        #expect(c.bands.map(\.scores) == [300, 300])
        // Band 0: 250 scores below 1 and 50 from 5: rank ⌈301 × 0.68⌉ = 205 → the 205th of 0, 0.004, ... = 0.816.
        #expect(abs(c.bands[0].scale - 204.0 / 250) < 1e-12)
        #expect(c.scale(anchors: 0) == c.bands[0].scale)
        #expect(c.scale(anchors: 7) == c.bands[0].scale)
        #expect(c.scale(anchors: 12) == c.bands[1].scale)
        #expect(RadiusCalibration.conformal(scores: []) == nil)
    }

    /// The guarantee itself: on fresh scores from the same distribution as the calibration's, the calibrated
    /// radius covers close to 68% (at least 68% in expectation, at most 68% + 1/(n + 1)).
    @Test func calibratedRadiusCoversSixtyEightPercentOfFreshScores() throws {
        var rng = SeededGenerator(seed: 2026)
        // A radius 1.6 times too large for small fixes and 0.7 times too small for large ones.
        func score(anchors: Int) -> Double {
            let e = abs(rng.gaussian()) + abs(rng.gaussian())
            return anchors < 5 ? e / 1.6 : e / 0.7
        }
        let calibration = (0..<2000).map { i -> (anchors: Int, score: Double) in
            let a = i % 2 == 0 ? 3 : 9
            return (a, score(anchors: a))
        }
        let c = try #require(RadiusCalibration.conformal(scores: calibration))
        #expect(c.bands.count == 2)
        for anchors in [3, 9] {
            let fresh = (0..<20000).map { _ in score(anchors: anchors) }
            let covered = Double(fresh.filter { $0 <= c.scale(anchors: anchors) }.count) / Double(fresh.count)
            #expect((0.66...0.70).contains(covered), "anchors \(anchors): coverage \(covered)")
        }
    }

    @Test func venueFileCarriesTheCalibration() throws {
        var venue = testVenue()
        venue.radius.moving = RadiusCalibration(bands: [RadiusCalibration.Band(minimumAnchors: 0, scale: 0.9, scores: 120),
                                                        RadiusCalibration.Band(minimumAnchors: 5, scale: 1.25, scores: 400)])
        venue.radius.stationary = RadiusCalibration(probability: 0.68,
                                                    bands: [RadiusCalibration.Band(minimumAnchors: 0, scale: 1.1, scores: 793)])
        let written = VenueWriter.json(venue)
        #expect(written.contains(#"""
              "radius": {
                "moving": {"probability": 0.68, "bands": [{"anchors": 0, "scale": 0.9, "scores": 120}, {"anchors": 5, "scale": 1.25, "scores": 400}]},
                "static": {"probability": 0.68, "bands": [{"anchors": 0, "scale": 1.1, "scores": 793}]}
              }
            """#))
        let back = try VenueLoader.parse(Array(written.utf8), file: "site.venue.json")
        #expect(back == venue)
        #expect(!VenueWriter.json(testVenue()).contains("radius"))
    }

    @Test func badRadiusEntriesNameTheirPath() {
        func failure(_ radius: String) -> String? {
            do {
                _ = try VenueLoader.parse(Array(#"{"anchors": [], "radius": \#(radius)}"#.utf8), file: "site.venue.json")
                return nil
            } catch {
                return error.description
            }
        }
        #expect(failure(#"{"walking": {"bands": [{"anchors": 0, "scale": 1}]}}"#)
                == "site.venue.json: radius.walking: expected a target model, moving or static")
        #expect(failure(#"{"moving": {"bands": [{"anchors": 0, "scale": -1}]}}"#)
                == "site.venue.json: radius.moving.bands[0].scale: expected a number greater than 0, got -1.0")
        #expect(failure(#"{"moving": {"bands": [{"anchors": 3, "scale": 1}, {"anchors": 3, "scale": 2}]}}"#)
                == "site.venue.json: radius.moving.bands[1]: anchors: a second band from 3 anchors")
        #expect(failure(#"{"moving": {"bands": []}}"#) == "site.venue.json: radius.moving: bands: expected at least one band")
        #expect(failure(#"{"static": {"probability": 1.5, "bands": [{"anchors": 0, "scale": 1}]}}"#)?
                    .hasPrefix("site.venue.json: radius.static.probability: expected a number from 0.01 to 0.99") == true)
        #expect(failure(#"{"moving": {"bands": [{"anchors": 0, "scale": 1.2}]}}"#) == nil)
    }

    /// The engine multiplies each fix's radius by its mode's band scale, and only its mode's.
    @Test func engineScalesRadiiByTheVenuesCalibration() throws {
        let plain = testVenue()
        let walk = simulatedWalk(seconds: 30, venue: plain, seed: 7)
        var calibrated = plain
        calibrated.radius.moving = RadiusCalibration(bands: [RadiusCalibration.Band(minimumAnchors: 0, scale: 2, scores: 1),
                                                             RadiusCalibration.Band(minimumAnchors: 4, scale: 3, scores: 1)])
        calibrated.radius.stationary = RadiusCalibration(bands: [RadiusCalibration.Band(minimumAnchors: 0, scale: 5, scores: 1)])
        var configuration = EngineTests.configuration
        let base = replay(walk.observations, venue: plain, configuration: configuration)
        let scaled = replay(walk.observations, venue: calibrated, configuration: configuration)
        #expect(base.count == scaled.count && !base.isEmpty)
        for (a, b) in zip(base, scaled) {
            #expect(a.x == b.x && a.y == b.y)
            let expected = a.horizontalAccuracyMeters * (a.anchorCount >= 4 ? 3 : 2)
            #expect(abs(b.horizontalAccuracyMeters - expected) < 1e-9 * expected)
        }
        configuration.usesRadiusCalibration = false
        #expect(replay(walk.observations, venue: calibrated, configuration: configuration) == base)
        var stationary = EngineConfiguration.stationary
        stationary.targetHeightMeters = 1.2
        let still = replay(walk.observations, venue: plain, configuration: stationary)
        let stillScaled = replay(walk.observations, venue: calibrated, configuration: stationary)
        for (a, b) in zip(still, stillScaled) { #expect(abs(b.horizontalAccuracyMeters - 5 * a.horizontalAccuracyMeters) < 1e-9 * b.horizontalAccuracyMeters) }
    }
}

/// The folds of a survey and the held-out replays.
@Suite struct HeldOutCalibrationTests {
    /// Survey samples of a simulated walk (the observations with their true positions).
    static func survey(seconds: Double, start: Double, seed: UInt64, venue: Venue) -> [CalibrationSample] {
        let walk = simulatedWalk(seconds: seconds, start: start, venue: venue, seed: seed)
        return zip(walk.observations, walk.truth).map { o, p in
            CalibrationSample(anchor: o.anchor, rssiDBm: o.rssiDBm, x: p.x, y: p.y, z: p.z ?? 0, target: o.target, t: o.t)
        }
    }

    @Test func foldsFollowWhatTheSurveyHas() {
        let venue = testVenue()
        let a = Self.survey(seconds: 20, start: 1000, seed: 1, venue: venue)
        let b = Self.survey(seconds: 20, start: 5000, seed: 2, venue: venue)
        let files = HeldOutCalibration.split([("a.jsonl", a), ("b.jsonl", b)], mode: .moving)
        #expect(files.0 == .file && files.1.map(\.name) == ["a.jsonl", "b.jsonl"])
        // One file with a gap of over 10 minutes: two runs.
        let runs = HeldOutCalibration.split([("ab.jsonl", a + b)], mode: .moving)
        #expect(runs.0 == .run && runs.1.map(\.samples.count) == [a.count, b.count])
        // One continuous run: five stretches of equal time.
        let stretches = HeldOutCalibration.split([("a.jsonl", a)], mode: .moving)
        #expect(stretches.0 == .stretch && stretches.1.count == 5)
        #expect(stretches.1.map(\.samples.count).reduce(0, +) == a.count)
        // Static: scans grouped by surveyed point, both passes over a point in one fold.
        let scans = [(target: "fp-0", x: 1.0, y: 2.0), (target: "fp-1", x: 4.0, y: 2.0), (target: "fp-2", x: 1.0, y: 2.004)]
        let samples = scans.enumerated().flatMap { i, s in
            (0..<3).map { k in CalibrationSample(anchor: "a\(k)", rssiDBm: -70, x: s.x, y: s.y, z: 0, target: s.target,
                                                 t: Double(100 * i + k)) }
        }
        let points = HeldOutCalibration.split([("scans.jsonl", samples)], mode: .static)
        #expect(points.0 == .point && points.1.map(\.name) == ["1.0,2.0", "4.0,2.0"])
        #expect(points.1.map(\.samples.count) == [6, 3])
        // Static truth: each scan at its last line.
        let truth = HeldOutCalibration.truth(samples, mode: .static)
        #expect(truth.map(\.t) == [2, 102, 202] && truth.map(\.target) == ["fp-0", "fp-1", "fp-2"])
    }

    @Test func tooFewFoldsIsAnError() {
        let venue = testVenue()
        #expect(throws: HeldOutCalibration.TooFewFolds.self) {
            _ = try HeldOutCalibration(venue: venue, surveys: [("a.jsonl", [])], mode: .moving, configuration: .moving)
        }
    }

    /// Three walks whose shadowing (6 dB) is wider than the model's default sigma: held out, every fold scored by
    /// the calibration of the other two, the calibrated radius covers about 68% of the fixes.
    @Test func heldOutCoverageIsHonest() throws {
        let venue = testVenue()
        let walks = (0..<3).map { i in
            let walk = simulatedWalk(seconds: 90, start: 1000 + 5000 * Double(i), sigmaDB: 6, venue: venue,
                                     seed: 40 + UInt64(i))
            return ("walk\(i).jsonl", zip(walk.observations, walk.truth).map { o, p in
                CalibrationSample(anchor: o.anchor, rssiDBm: o.rssiDBm, x: p.x, y: p.y, z: p.z ?? 0, target: o.target,
                                  t: o.t)
            })
        }
        let heldOut = try HeldOutCalibration(venue: venue, surveys: walks, mode: .moving, configuration: .moving)
        #expect(heldOut.kind == .file && heldOut.folds.count == 3)
        let summary = heldOut.summary
        #expect(summary.scored == summary.truthPoints && summary.scored > 1000)
        #expect((0.62...0.74).contains(summary.coverage68), "\(summary.text)")
        let full = try #require(heldOut.calibration())
        #expect(full.bands.allSatisfy { $0.scale.isFinite && $0.scale > 0 })
        // A fold's calibrated fixes are its raw fixes times the scale made without it.
        let without = try #require(heldOut.calibration(without: 1))
        for (raw, scaled) in zip(heldOut.folds[1].fixes, heldOut.calibratedFixes(1)) {
            #expect(abs(scaled.horizontalAccuracyMeters - raw.horizontalAccuracyMeters * without.scale(anchors: raw.anchorCount)) < 1e-9)
        }
    }
}
