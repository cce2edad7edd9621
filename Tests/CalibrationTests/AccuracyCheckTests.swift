import CalibrationKit
import Foundation
import Positioning
import Testing

@Suite struct AccuracyBaselineTests {
    static let baseline = AccuracyBaseline(protocolNote: "every set in full", sets: [
        AccuracyBaseline.SetResult(name: "walk", median: 1.5, p90: 3.0, coverage68: 0.70, scoredShare: 1,
                                   truthPoints: 100),
    ])

    static func run(median: Double = 1.5, p90: Double = 3.0, coverage: Double = 0.70,
                    scored: Double = 1) -> [AccuracyBaseline.SetResult] {
        [AccuracyBaseline.SetResult(name: "walk", median: median, p90: p90, coverage68: coverage, scoredShare: scored,
                                    truthPoints: 100)]
    }

    /// Limits: median 1.5 × 1.1 + 0.05 = 1.70 m, p90 3.0 × 1.1 + 0.05 = 3.35 m, coverage band [0.60, 0.76].
    @Test func toleranceEdges() {
        let b = Self.baseline
        #expect(b.failures(of: Self.run()).isEmpty)
        #expect(b.failures(of: Self.run(median: 1.69, p90: 3.34, coverage: 0.61)).isEmpty)
        #expect(b.failures(of: Self.run(median: 1.71)) == ["walk: median 1.71 m is worse than baseline 1.50 m (limit 1.70 m)"])
        #expect(b.failures(of: Self.run(p90: 3.4)).count == 1)
        #expect(b.failures(of: Self.run(coverage: 0.58)).count == 1)
        #expect(b.failures(of: Self.run(coverage: 0.80)).count == 1)
        #expect(b.failures(of: Self.run(scored: 0.9)).count == 1)
        #expect(b.failures(of: Self.run(median: .infinity)).count == 1)
        #expect(b.failures(of: []) == ["walk: in the baseline but not in this run"])
    }

    /// A baseline whose coverage is already outside the honest band tolerates 0.05 beyond it, not more.
    @Test func widenedCoverageBand() {
        var b = Self.baseline
        b.sets[0].coverage68 = 0.80
        #expect(b.failures(of: Self.run(coverage: 0.84)).isEmpty)
        #expect(b.failures(of: Self.run(coverage: 0.86)).count == 1)
    }
}

/// The accuracy check on the visible datasets against the checked-in baseline (Calibration/accuracy-baseline.json):
/// the CI guard against accuracy drift. Skipped without ../shared/data unless BLUEDOT_REQUIRE_INTEGRATION=1.
/// Every set in full, about 30 s in a debug build.
@Suite(.enabled(if: CalibrationFixture.useSharedData, "shared data missing (BLUEDOT_REQUIRE_INTEGRATION=1 fails)"))
struct AccuracyCheckTests {
    @Test func visibleSetsStayWithinTheBaseline() throws {
        let baseline = try AccuracyBaseline.load(path: CalibrationFixture.packageRoot
                                                 + "/Calibration/accuracy-baseline.json")
        let scenario = try AccuracyScenario(path: CalibrationFixture.dataDirectory + "/sets.json")
        let check = AccuracyCheck()
        #expect(AccuracyCheck.protocolNote == baseline.protocolNote)
        #expect(scenario.sets.count == baseline.sets.count)
        var results: [AccuracyBaseline.SetResult] = []
        for set in scenario.sets {
            let r = try check.run(set)
            print(String(format: "%@: median %.2f m, p90 %.2f m, coverage68 %.3f", set.name, r.median, r.p90,
                         r.coverage68))
            results.append(r)
            // Scored fold by fold (`--per-fold`), or split in time (`--split-after`: UJI's two passes), the parts
            // add up to the set: the same points, the same coverage.
            var breakdowns = [try check.split(set, after: 44_200)]
            if let folds = r.folds, (2...8).contains(folds) {
                breakdowns.append(try check.folds(of: set))
                #expect(breakdowns[1].count == folds)
            }
            for parts in breakdowns {
                let scored = parts.reduce(0) { $0 + $1.scored }
                #expect(scored == Int((r.scoredShare * Double(r.truthPoints)).rounded()), "\(set.name)")
                let covered = parts.reduce(0.0) { $0 + $1.coverage68 * Double($1.scored) }
                #expect(abs(covered / Double(scored) - r.coverage68) < 1e-9, "\(set.name)")
            }
            if set.isStatic {
                // UJI: 13 scans at each of 34 points per pass, so both passes hold about half the scans.
                #expect(breakdowns[0].allSatisfy { $0.scored > r.truthPoints / 3 }, "\(set.name)")
            }
        }
        let failures = baseline.failures(of: results)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}

/// The same sets with no survey (`--survey none`) and with self-calibration only (`--survey learned`), against their
/// baselines (Calibration/accuracy-baseline-no-survey.json, accuracy-baseline-learned.json): the CI guard on the
/// accuracy and the radius a user who never surveys gets.
@Suite(.enabled(if: CalibrationFixture.useSharedData, "shared data missing (BLUEDOT_REQUIRE_INTEGRATION=1 fails)"))
struct NoSurveyAccuracyTests {
    func check(_ use: AccuracyCheck.SurveyUse) throws -> [String: AccuracyBaseline.SetResult] {
        let baseline = try AccuracyBaseline.load(path: CalibrationFixture.packageRoot + "/Calibration/" + use.baselineName)
        let scenario = try AccuracyScenario(path: CalibrationFixture.dataDirectory + "/sets.json")
        let check = AccuracyCheck()
        check.surveyUse = use
        #expect(use.protocolNote == baseline.protocolNote)
        var results: [AccuracyBaseline.SetResult] = []
        for set in scenario.sets { results.append(try check.run(set)) }
        let failures = baseline.failures(of: results)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        return Dictionary(uniqueKeysWithValues: results.map { ($0.name, $0) })
    }

    /// A set with one survey is learned in two halves, each after the other: cut at the widest gap in the middle
    /// third (a wider one outside it does not count).
    @Test func aSetOfOneSurveyIsCutAtItsWidestMiddleGap() {
        let times: [Double] = [0, 1, 2, 10, 11, 12, 13, 14, 40]
        let samples = times.map { CalibrationSample(anchor: "a", rssiDBm: -60, x: 0, y: 0, z: 0, t: $0) }
        let parts = AccuracyCheck.halves(samples)
        #expect(parts.map { $0.map(\.t) } == [[0, 1, 2], [10, 11, 12, 13, 14, 40]])
        #expect(AccuracyCheck.halves(Array(samples.prefix(2))).count == 1)
    }

    @Test func withoutASurveyAndLearningTheSetsStayWithinTheirBaselines() throws {
        let none = try check(.none)
        let learned = try check(.learned)
        // Where the replay is long enough to learn (the WUT flat's four runs, UJI's 884 scans), learning errs less.
        for name in ["calibration", "geo-tx04", "geo-tx20"] {
            let a = try #require(none[name]), b = try #require(learned[name])
            #expect(b.median < 0.9 * a.median, "\(name): learned \(b.median) m against \(a.median) m")
            #expect(b.learnedUpdates ?? 0 >= 1, "\(name)")
        }
        // BOUN's other three tracks are too little traffic for an update before the scored track: its first comes
        // during it (README, "Without a survey").
        for name in ["straight_01", "straight_02", "straight_03", "rectangular_with_rotation"] {
            let r = try #require(learned[name])
            let first = try #require(r.learnedFirstUpdateSeconds, "\(name)"), length = try #require(r.scoredSeconds)
            #expect(first > 0 && first < length, "\(name): \(first) s of \(length) s")
        }
    }

    /// Until learning's first update, a learning replay's fixes are those of the venue as given, fix for fix.
    @Test func learningChangesNoFixBeforeItsFirstUpdate() throws {
        let scenario = try AccuracyScenario(path: CalibrationFixture.dataDirectory + "/sets.json")
        let set = try #require(scenario.sets.first { $0.name == "straight_01" })
        let check = AccuracyCheck()
        check.surveyUse = .none
        let none = try check.runScored(set).points
        check.surveyUse = .learned
        let (result, learned, _) = try check.runScored(set)
        let first = try #require(result.learnedFirstUpdateSeconds)
        let start = try #require(learned.map(\.truth.t).min())
        #expect(none.count == learned.count)
        let before = zip(none, learned).filter { $0.1.truth.t < start + first }
        #expect(before.count > 100)
        #expect(before.allSatisfy { $0.0.errorMeters == $0.1.errorMeters })
        // And after it, they differ.
        #expect(zip(none, learned).contains { a, b in b.truth.t > start + first + 5 && a.errorMeters != b.errorMeters })
    }
}
