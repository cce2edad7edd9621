import BlueDotCore
import Formats
import Foundation
import Testing
@testable import Positioning

/// The prior on uncalibrated models and self-calibration, in a simulated world whose models the venue does not know:
/// the site is louder than the formats' default (by `siteOffsetDB` at 1 m, and exponent 2.2 against 2) and every
/// anchor has an offset of its own.
@Suite struct SelfCalibrationTests {
    static let siteOffsetDB = 9.0
    static let ownOffsetsDB = [1.5, -2.0, 0.5, 2.5, -1.0, -2.5, 1.0, 0.0]

    /// The world as it is.
    static func world(siteOffsetDB: Double = siteOffsetDB) -> Venue {
        var v = testVenue(model: PathLossModel(measuredPowerDBm: -59 + siteOffsetDB, pathLossExponent: 2.2,
                                               shadowingSigmaDB: 3))
        for i in v.anchors.indices { v.anchors[i].measuredPowerDBm = -59 + siteOffsetDB + ownOffsetsDB[i] }
        return v
    }

    /// The venue as a user who never surveyed writes it: positions only, the formats' default model.
    static let venue = testVenue(model: .uncalibrated)

    static func configuration(learning: Bool, prior: Bool = true) -> EngineConfiguration {
        var c = EngineConfiguration.moving
        c.targetHeightMeters = 1.2
        c.usesModelUncertainty = prior
        if learning { c.selfCalibration = SelfCalibration.Settings() }
        return c
    }

    static func run(_ observations: [Observation], venue: Venue = venue, configuration: EngineConfiguration)
        -> (fixes: [Location], engine: PositioningEngine) {
        var engine = PositioningEngine(venue: venue, configuration: configuration)
        var fixes: [Location] = []
        for o in observations { engine.ingest(o, into: &fixes) }
        engine.finish(into: &fixes)
        return (fixes, engine)
    }

    static let l4 = 10 * log10(4.0)

    /// The site's level at 4 m in the world.
    static var trueSiteLevel: Double { -59 + siteOffsetDB - 2.2 * l4 }

    @Test func theRadiusCarriesTheUncalibratedPrior() {
        let walk = simulatedWalk(seconds: 300, venue: Self.world(), seed: 71)
        let withoutFixes = Self.run(walk.observations, configuration: Self.configuration(learning: false, prior: false))
        let withFixes = Self.run(walk.observations, configuration: Self.configuration(learning: false))
        let without = Evaluator.evaluate(fixes: withoutFixes.fixes, truth: walk.truth)
        let with = Evaluator.evaluate(fixes: withFixes.fixes, truth: walk.truth)
        // The same fixes: only the radius differs, and it is never smaller.
        #expect(abs((with.median ?? 0) - (without.median ?? 1)) < 1e-9)
        for (a, b) in zip(withFixes.fixes, withoutFixes.fixes) {
            #expect(a.horizontalAccuracyMeters >= b.horizontalAccuracyMeters - 1e-9)
        }
        #expect((with.coverage68 ?? 0) >= 0.6, "coverage with the prior \(with.coverage68 ?? .nan)")
    }

    /// `radiusScale` stands for the model error the filter does not see: it scales the filter's part of the radius
    /// and not the model errors the prior states, which are that error, counted.
    @Test func theRadiusScaleLeavesTheStatedModelErrorsAlone() {
        let walk = simulatedWalk(seconds: 120, venue: Self.world(), seed: 72)
        func radii(prior: Bool, scale: Double) -> [Double] {
            var c = Self.configuration(learning: false, prior: prior)
            c.radiusScale = scale
            c.radiusFloorMeters = 0
            return Self.run(walk.observations, configuration: c).fixes.map(\.horizontalAccuracyMeters)
        }
        let filterOnly = zip(radii(prior: false, scale: 2), radii(prior: false, scale: 1)).map { $0 / $1 }
        #expect(!filterOnly.isEmpty && filterOnly.allSatisfy { abs($0 - 2) < 1e-9 })
        let withPrior = zip(radii(prior: true, scale: 2), radii(prior: true, scale: 1)).map { $0 / $1 }
        #expect(withPrior.count == filterOnly.count && withPrior.allSatisfy { $0 > 1 && $0 < 2 + 1e-9 })
        let mean = withPrior.reduce(0, +) / Double(withPrior.count)
        #expect(mean < 1.9, "mean ratio \(mean)")
    }

    /// The shared part of the model error moves a fix at the centre of a ring of anchors nowhere (every anchor
    /// errs alike and pulls alike), and one near the ring's edge far; the anchors' own parts move both.
    @Test func aSharedErrorMattersAwayFromTheCentre() {
        let venue = testVenue()
        func covariance(_ x: Double, _ y: Double, _ u: AnchorUncertainty) -> Double {
            var rng = SeededGenerator(seed: 1)
            let m = simulatedMeasurements(at: x, y, venue: venue, noiseSigmaDB: 0, using: &rng)
            let c = ModelErrorPropagation.covariance(m, uncertainties: m.map { _ in u }, x: x, y: y,
                                                     priorInformation: (1 / 33.3, 1 / 33.3))
            return c.sxx + c.syy
        }
        let shared = AnchorUncertainty(shared: UncalibratedPrior.site, own: .none)
        let own = AnchorUncertainty(shared: .none, own: UncalibratedPrior.anchor)
        #expect(covariance(10, 10, shared) < 1e-6)
        #expect(covariance(16, 10, shared) > 0.1)
        #expect(covariance(10, 10, own) > 0.05)
        #expect(covariance(10, 10, .none) == 0)
    }

    /// With no learning, the residuals at the engine's own fixes still say how far the default is from the site:
    /// the shared level the radius carries follows them (`SiteEvidence`), past the prior where the site is far off,
    /// well below it where the default happens to be right, and the models and fixes stay as they were.
    @Test func theResidualsSayHowFarTheDefaultIs() throws {
        func run(siteOffsetDB: Double, evidence: Bool) -> (fixes: [Location], engine: PositioningEngine) {
            let walk = simulatedWalk(seconds: 300, venue: Self.world(siteOffsetDB: siteOffsetDB), seed: 72)
            var c = Self.configuration(learning: false)
            c.usesSiteEvidence = evidence
            return Self.run(walk.observations, configuration: c)
        }
        // Louder by 9 dB at 1 m with exponent 2.2: +7.8 dB at 4 m, of which the fixes take up a little (they move
        // towards the anchors they are nearest).
        let far = run(siteOffsetDB: 9, evidence: true)
        let farShared = try #require(far.engine.context.evidentShared)
        #expect(farShared.levelSigmaDB > 5.5, "\(farShared)")
        #expect(far.engine.context.anchors.models == Self.run([], configuration: Self.configuration(learning: false))
            .engine.context.anchors.models)
        // -59 dBm at 1 m with exponent 2.2: -1.2 dB at 4 m.
        let near = run(siteOffsetDB: 0, evidence: true)
        let nearShared = try #require(near.engine.context.evidentShared)
        #expect(nearShared.levelSigmaDB < 3, "\(nearShared)")
        let prior = run(siteOffsetDB: 0, evidence: false)
        #expect(prior.engine.context.evidentShared == nil)
        // The same fixes, with a smaller radius where the default is right.
        for (a, b) in zip(near.fixes, prior.fixes) { #expect(a.x == b.x && a.y == b.y) }
        let radius = { (f: [Location]) in f.map(\.horizontalAccuracyMeters).reduce(0, +) / Double(f.count) }
        #expect(radius(near.fixes) < 0.9 * radius(prior.fixes))
    }

    @Test func learnsTheSiteFromTrafficAndErrsLess() throws {
        // RSSI scatters as it does around the surveyed anchors of the shared sets, which is what an uncalibrated
        // venue's model assumes (with less, the radius is too large and the test would measure that instead).
        let walk = simulatedWalk(seconds: 900, sigmaDB: UncalibratedPrior.shadowingSigmaDB, venue: Self.world(),
                                 seed: 72)
        let plain = Self.run(walk.observations, configuration: Self.configuration(learning: false)).fixes
        let (learnedFixes, engine) = Self.run(walk.observations, configuration: Self.configuration(learning: true))
        let learned = try #require(engine.learnedCalibration)
        #expect(learned.counters.accepted >= 1)
        #expect(abs(learned.site.levelDBm - Self.trueSiteLevel) < 2.5,
                "site level learned \(learned.site.levelDBm), true \(Self.trueSiteLevel)")
        // Scored after the first 5 minutes, once learning had traffic to learn from.
        let late = walk.truth.filter { $0.t > walk.truth[0].t + 300 }
        let before = Evaluator.evaluate(fixes: plain, truth: late)
        let after = Evaluator.evaluate(fixes: learnedFixes, truth: late)
        // 2.36 m against 2.74 m when written.
        #expect((after.median ?? .infinity) < 0.9 * (before.median ?? 0),
                "median \(after.median ?? .nan) learned against \(before.median ?? .nan)")
        #expect((0.55...0.9).contains(after.coverage68 ?? 0), "coverage \(after.coverage68 ?? .nan)")
        // Every anchor's model in use is the learned one, with its own offset recovered roughly.
        for (i, e) in learned.anchors.enumerated() {
            let level = e.measuredPowerDBm - e.pathLossExponent * Self.l4
            let truth = Self.trueSiteLevel + Self.ownOffsetsDB[i]
            #expect(abs(level - truth) < 3.5, "\(e.id): \(level) against \(truth)")
        }
    }

    /// The venue's priors are learning's, whether the radius carries them or not: with the engine's own radius
    /// (`usesModelUncertainty` off) it learns all the same, and the radius stays the filter's.
    @Test func learningNeedsNoModelUncertaintyInTheRadius() throws {
        let walk = simulatedWalk(seconds: 600, venue: Self.world(), seed: 74)
        let (fixes, engine) = Self.run(walk.observations, configuration: Self.configuration(learning: true, prior: false))
        let learned = try #require(engine.learnedCalibration)
        #expect(learned.counters.accepted >= 1)
        #expect(abs(learned.site.levelDBm - Self.trueSiteLevel) < 2.5)
        #expect(engine.context.anchors.uncertainties.allSatisfy { $0.isZero })
        #expect(!fixes.isEmpty)
    }

    @Test func boundsHoldWhateverTheTraffic() throws {
        let walk = simulatedWalk(seconds: 600, venue: Self.world(siteOffsetDB: 40), seed: 73)
        let (_, engine) = Self.run(walk.observations, configuration: Self.configuration(learning: true))
        let learned = try #require(engine.learnedCalibration)
        let default4 = -59 - 2 * Self.l4
        #expect(abs(learned.site.levelDBm - default4) <= 20 + 1e-9)
        for e in learned.anchors { #expect((1.2...5.0).contains(e.pathLossExponent)) }
    }

    /// An anchor a survey fitted keeps its model where the traffic agrees with it.
    @Test func aSurveyStillCounts() throws {
        var surveyed = Self.world()
        for i in surveyed.anchors.indices {
            surveyed.anchors[i].pathLossExponent = 2.2
            surveyed.anchors[i].calibration = AnchorCalibration(
                source: .survey, samples: 2000, uncertainty: ModelUncertainty(levelSigmaDB: 0.3, exponentSigma: 0.03))
        }
        let walk = simulatedWalk(seconds: 600, venue: Self.world(), seed: 74)
        let (_, engine) = Self.run(walk.observations, venue: surveyed, configuration: Self.configuration(learning: true))
        let learned = try #require(engine.learnedCalibration)
        for (i, e) in learned.anchors.enumerated() {
            #expect(!e.sharesSite)
            let given = surveyed.anchors[i].model(default: surveyed.model)
            #expect(abs(e.measuredPowerDBm - given.measuredPowerDBm) < 1.0, "\(e.id) moved from the survey's model")
        }
    }

    @Test func whatWasLearnedSurvivesARestart() throws {
        let walk = simulatedWalk(seconds: 600, venue: Self.world(), seed: 75)
        let (_, engine) = Self.run(walk.observations, configuration: Self.configuration(learning: true))
        let learned = try #require(engine.learnedCalibration)
        let text = LearnedCalibrationFile.json(learned, venue: Self.venue.name)
        let (read, venueName) = try LearnedCalibrationFile.parse(Array(text.utf8), file: "learned.json")
        #expect(venueName == Self.venue.name)
        #expect(read == learned)
        var restarted = PositioningEngine(venue: Self.venue, configuration: Self.configuration(learning: true))
        try restarted.restoreLearnedCalibration(read)
        let again = try #require(restarted.learnedCalibration)
        for (a, b) in zip(again.anchors, learned.anchors) {
            #expect(abs(a.measuredPowerDBm - b.measuredPowerDBm) < 1e-9)
            #expect(abs(a.pathLossExponent - b.pathLossExponent) < 1e-9)
        }
        // The restarted engine locates with what was learned from its first fix on.
        let next = simulatedWalk(seconds: 60, start: 5000, venue: Self.world(), seed: 76)
        var fixes: [Location] = []
        for o in next.observations { restarted.ingest(o, into: &fixes) }
        restarted.finish(into: &fixes)
        let fresh = Self.run(next.observations, configuration: Self.configuration(learning: true)).fixes
        let r = Evaluator.evaluate(fixes: fixes, truth: next.truth), f = Evaluator.evaluate(fixes: fresh, truth: next.truth)
        #expect((r.median ?? .infinity) < (f.median ?? 0), "restored \(r.median ?? .nan), fresh \(f.median ?? .nan)")
    }

    @Test func aDamagedFileIsRefusedNamingWhere() {
        let good = LearnedCalibrationFile.json(
            LearnedCalibration(site: .init(levelDBm: -70.5, exponent: 2, uncertainty: .none), anchors: []), venue: "v")
        #expect(throws: Never.self) { try LearnedCalibrationFile.parse(Array(good.utf8), file: "l.json") }
        let cases: [(String, String)] = [
            (good.replacingOccurrences(of: "\"level\":-70.5", with: "\"level\":\"loud\""), "l.json: site.level: expected a number"),
            (String(good.dropLast(3)), "l.json: line 1"),
            (good.replacingOccurrences(of: "\"version\":1", with: "\"version\":2"), "l.json: version: expected version 1"),
            (good.replacingOccurrences(of: "\"phase\":\"learning\"", with: "\"phase\":\"dreaming\""), "l.json: phase:"),
        ]
        for (text, message) in cases {
            do {
                _ = try LearnedCalibrationFile.parse(Array(text.utf8), file: "l.json")
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.description.hasPrefix(message), "\(error.description)")
            }
        }
        // Values outside the learning bounds do not reach an engine.
        var far = LearnedCalibration(site: .init(levelDBm: -20, exponent: 2, uncertainty: .none), anchors: [])
        var engine = PositioningEngine(venue: Self.venue, configuration: Self.configuration(learning: true))
        #expect(throws: LearnedCalibration.Mismatch.self) { try engine.restoreLearnedCalibration(far) }
        far.site.levelDBm = -71
        #expect(throws: Never.self) { try engine.restoreLearnedCalibration(far) }
    }

    @Test func aVenueKeepsItsAnchorsCalibrations() throws {
        var v = Self.world()
        v.anchors[0].calibration = AnchorCalibration(
            source: .learned, samples: 812, uncertainty: ModelUncertainty(levelSigmaDB: 1.4, exponentSigma: 0.34))
        let text = VenueWriter.json(v)
        let read = try VenueLoader.parse(Array(text.utf8), file: "v.json")
        #expect(read.anchors[0].calibration == v.anchors[0].calibration)
        #expect(read.anchors[1].calibration == nil)
        let bad = text.replacingOccurrences(of: "\"source\": \"learned\"", with: "\"source\": \"guessed\"")
        #expect {
            try VenueLoader.parse(Array(bad.utf8), file: "v.json")
        } throws: { error in
            "\(error)".contains("anchors[0].calibration.source: unknown source \"guessed\"")
        }
    }

    /// A world whose anchors also carry a place-dependent bias (up to 5 dB, the same at every visit, as walls and
    /// furniture make it): learning a site bias field with the models finds it along the walk, and the fixes err
    /// less than learning the models alone; static scans, which apply no field, learn none.
    @Test func theSiteBiasFieldIsLearnedFromTrafficToo() throws {
        let world = Self.world()
        func bias(_ anchor: Int, _ x: Double, _ y: Double) -> Double {
            let k = Double(anchor)
            return 5 * sin(0.5 * x + k) * cos(0.4 * y + 0.7 * k)
        }
        var walk = simulatedWalk(seconds: 900, sigmaDB: UncalibratedPrior.shadowingSigmaDB, venue: world, seed: 76)
        for i in walk.observations.indices {
            let a = world.anchors.firstIndex { $0.id == walk.observations[i].anchor }!
            walk.observations[i].rssiDBm += bias(a, walk.truth[i].x, walk.truth[i].y)
        }
        var modelsOnly = Self.configuration(learning: true)
        modelsOnly.selfCalibration!.field = nil
        let (withoutField, _) = Self.run(walk.observations, configuration: modelsOnly)
        let (withField, engine) = Self.run(walk.observations, configuration: Self.configuration(learning: true))
        let learning = try #require(engine.selfCalibration)
        #expect(learning.fieldCounters.accepted >= 1)
        #expect(modelsOnly.selfCalibration!.field == nil)
        // The learned layers follow the true bias along the walk (its points, every anchor).
        var products = 0.0, learnedSquares = 0.0, trueSquares = 0.0
        for p in walk.truth where Int(p.t * 5) % 25 == 0 {
            for a in world.anchors.indices {
                let layer = try #require(learning.fields[a], "anchor \(a) has no learned layer")
                let b = layer.evaluate(x: p.x, y: p.y).biasDB, truth = bias(a, p.x, p.y)
                products += b * truth
                learnedSquares += b * b
                trueSquares += truth * truth
            }
        }
        let correlation = products / (learnedSquares * trueSquares).squareRoot()
        let late = walk.truth.filter { $0.t > walk.truth[0].t + 300 }
        let before = Evaluator.evaluate(fixes: withoutField, truth: late)
        let after = Evaluator.evaluate(fixes: withField, truth: late)
        print(String(format: "learned field: correlation %.2f with the true bias; median %.2f m with it, %.2f m models "
                     + "only", correlation, after.median ?? .nan, before.median ?? .nan))
        // Seeded: 0.44, and 2.82 m against 2.93 m (the bias, 2.5 dB rms, under 5.4 dB of shadowing, and the field's
        // strong shrinkage, τ = 2 dB and σ_c = 4 dB, as for a survey).
        #expect(correlation > 0.35, "correlation \(correlation)")
        #expect((after.median ?? .infinity) < (before.median ?? 0),
                "median \(after.median ?? .nan) with the field against \(before.median ?? .nan)")
        var stationary = EngineConfiguration.stationary
        stationary.targetHeightMeters = 1.2
        stationary.selfCalibration = SelfCalibration.Settings()
        let (_, still) = Self.run(walk.observations, configuration: stationary)
        #expect(still.selfCalibration?.settings.field == nil)
        #expect(still.selfCalibration?.fields.allSatisfy { $0 == nil } == true)
    }

    /// Receivers with hidden gains of up to ±6 dB that hear each other (each advertises once a second; walls between
    /// three pairs take 8 dB): the links give the gains back, and the tag's fixes err less than learning from the
    /// tag alone. Figures printed for docs/positioning.md, "Receivers that hear each other".
    @Test func receiversThatHearEachOtherGiveTheirGains() throws {
        let gains = [5.0, -6.0, 2.0, -3.0, 6.0, -1.0, 4.0, -4.5]
        var world = testVenue(model: PathLossModel(measuredPowerDBm: -50, pathLossExponent: 2.2, shadowingSigmaDB: 3))
        for i in world.anchors.indices { world.anchors[i].measuredPowerDBm = -50 + gains[i] }
        let walk = simulatedWalk(seconds: 900, venue: world, seed: 81)
        var rng = SeededGenerator(seed: 82)
        let walled: Set<[Int]> = [[0, 4], [1, 5], [2, 6]]
        var links: [Observation] = []
        for second in stride(from: walk.truth[0].t, to: walk.truth.last!.t, by: 1) {
            for (i, a) in world.anchors.enumerated() {
                for (j, b) in world.anchors.enumerated() where i != j {
                    let d = ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
                    let wall = walled.contains([min(i, j), max(i, j)]) ? 8.0 : 0
                    let rssi = -55 + gains[j] - 22 * log10(d) - wall + 3 * rng.gaussian()
                    links.append(Observation(t: second + 0.001 * Double(i), anchor: b.id, target: a.id, rssiDBm: rssi))
                }
            }
        }
        let heard = (walk.observations + links).sorted { $0.t < $1.t }
        let late = walk.truth.filter { $0.t > walk.truth[0].t + 300 }
        func median(_ observations: [Observation], venue: Venue = Self.venue, learning: Bool) -> (Double, PositioningEngine) {
            let (fixes, engine) = Self.run(observations, venue: venue, configuration: Self.configuration(learning: learning))
            return (Evaluator.evaluate(fixes: fixes, truth: late).median ?? .infinity, engine)
        }
        let (withPairs, engine) = median(heard, learning: true)
        let (withoutPairs, _) = median(walk.observations, learning: true)
        let (none, _) = median(walk.observations, learning: false)
        var known = world
        for i in known.anchors.indices {
            known.anchors[i].calibration = AnchorCalibration(source: .survey, samples: 1000, uncertainty: .none)
        }
        let (trueGains, _) = median(walk.observations, venue: known, learning: false)
        #expect(engine.counters.anchorLinks == links.count, "links are not targets")
        let fit = try #require(engine.pairCalibration?.fit)
        let recovered = fit.gains.map { $0?.offsetDB ?? .nan }
        let mean = recovered.reduce(0, +) / 8, trueMean = gains.reduce(0, +) / 8
        let rms = (zip(recovered, gains).map { ($0 - mean - ($1 - trueMean)) * ($0 - mean - ($1 - trueMean)) }
            .reduce(0, +) / 8).squareRoot()
        print(String(format: "pairs: gains recovered to %.2f dB rms (%@); tag median %.2f m with pairs, %.2f m learning "
                     + "from the tag alone, %.2f m not learning, %.2f m with the true models", rms,
                     recovered.map { String(format: "%+.1f", $0 - mean) }.joined(separator: " "), withPairs,
                     withoutPairs, none, trueGains))
        #expect(rms < 1.5, "gains recovered to \(rms) dB rms")
        #expect(withPairs < withoutPairs, "with pairs \(withPairs) m, without \(withoutPairs) m")
    }
}
