import BlueDotCore
import Testing
@testable import Positioning

@Suite struct EvaluationTests {
    func fix(_ t: Double, _ x: Double, _ y: Double, accuracy: Double = 1, target: String = "tag") -> Location {
        Location(timestamp: t, targetID: target, x: x, y: y, horizontalAccuracyMeters: accuracy, anchorCount: 3)
    }

    @Test func percentileIsNumpyLinear() {
        #expect(Percentile.of(sorted: [], 50) == nil)
        #expect(Percentile.of(sorted: [7], 90) == 7)
        #expect(Percentile.of(sorted: [1, 2, 3, 4], 50) == 2.5)
        // numpy.percentile([1, 2, 3, 4], 90) = 3.7; ([0, 10], 25) = 2.5; p0 = min, p100 = max.
        #expect(abs(Percentile.of(sorted: [1, 2, 3, 4], 90)! - 3.7) < 1e-12)
        #expect(Percentile.of(sorted: [0, 10], 25) == 2.5)
        #expect(Percentile.of(sorted: [1, 5, 9], 0) == 1 && Percentile.of(sorted: [1, 5, 9], 100) == 9)
    }

    @Test func movingProtocolHandComputed() {
        let fixes = [fix(20, 1, 1, accuracy: 0.5), fix(10, 0, 0, accuracy: 1), fix(11, 3, 4, accuracy: 6)]
        let truth = [
            TruthPoint(t: 9.999, target: "tag", x: 0, y: 1),   // fix 10 is within +0.001 s: error 1, covered
            TruthPoint(t: 9.998, target: "tag", x: 0, y: 0),   // nothing at or before 9.999: missing
            TruthPoint(t: 12, target: "tag", x: 0, y: 0),      // fix 11: error 5, covered by 6
            TruthPoint(t: 16, target: "tag", x: 3, y: 0),      // fix 11 is exactly 5 s old: error 4, covered
            TruthPoint(t: 16.001, target: "tag", x: 3, y: 0),  // fix 11 is 5.001 s old: missing
            TruthPoint(t: 20, target: "tag", x: 1, y: 2),      // fix 20: error 1, not covered by 0.5 (coverage 3/4)
            TruthPoint(t: 20, target: "other", x: 1, y: 2),    // no fixes of that target: missing
        ]
        let report = Evaluator.evaluate(fixes: fixes, truth: truth)
        #expect(report.points.map(\.errorMeters) == [1, 5, 4, 1])
        #expect(report.points.map(\.fix.timestamp) == [10, 11, 11, 20])
        #expect(report.total == 7 && report.scored == 4 && report.missing == 3)
        #expect(report.median == 2.5)
        #expect(abs(report.p90! - 4.7) < 1e-12)
        #expect(report.mean == 2.75)
        #expect(abs(report.rmse! - (43.0 / 4).squareRoot()) < 1e-12)
        #expect(report.max == 5)
        #expect(report.coverage68 == 0.75)
    }

    @Test func toleranceOfOneMillisecondAtUnixTimes() {
        let t = 1581249601.409
        let truth = [TruthPoint(t: t, target: "tag", x: 0, y: 0)]
        #expect(Evaluator.evaluate(fixes: [fix(1581249601.410, 1, 0)], truth: truth).scored == 1)
        #expect(Evaluator.evaluate(fixes: [fix(1581249601.411, 1, 0)], truth: truth).scored == 0)
        #expect(Evaluator.evaluate(fixes: [fix(1581249596.409, 1, 0)], truth: truth).scored == 1)
        #expect(Evaluator.evaluate(fixes: [fix(1581249596.408, 1, 0)], truth: truth).scored == 0)
    }

    @Test func latestAmongEqualTimesIsTheLastInInputOrder() {
        let fixes = [fix(5, 1, 0), fix(5, 2, 0), fix(4, 9, 9)]
        let points = Evaluator.score(fixes: fixes, truth: [TruthPoint(t: 5, target: "tag", x: 0, y: 0)])
        #expect(points.map(\.errorMeters) == [2])
    }

    @Test func staticProtocolHandComputed() {
        let fixes = [fix(3, 4, 0, target: "fp-0"), fix(1, 2, 0, target: "fp-0"), fix(1, 3, 0, target: "fp-0"),
                     fix(0.5, 1, 0, target: "fp-0"), fix(100, 7, 0, target: "fp-1")]
        let truth = [
            TruthPoint(t: 1, target: "fp-0", x: 0, y: 0),    // first fix at or after 1: the x = 2 one (file order)
            TruthPoint(t: 0.2, target: "fp-0", x: 0, y: 0),  // first at or after 0.2: x = 1
            TruthPoint(t: 500, target: "fp-0", x: 0, y: 0),  // none after: latest earlier (t 3, x = 4), no age limit
            TruthPoint(t: 0, target: "fp-1", x: 7, y: 3),    // first after, 100 s later: error 3
            TruthPoint(t: 0, target: "fp-2", x: 0, y: 0),    // no fix: missing
        ]
        let report = Evaluator.evaluate(fixes: fixes, truth: truth, scoring: .stationary)
        #expect(report.points.map(\.errorMeters) == [2, 1, 4, 3])
        #expect(report.missing == 1 && report.total == 5)
        // The moving protocol would take other fixes: the latest at or before each time, within 5 s.
        let moving = Evaluator.score(fixes: fixes, truth: truth)
        #expect(moving.map(\.errorMeters) == [3])
    }

    @Test func textAndJSONOutputs() {
        let fixes = [fix(10, 0, 0), fix(11, 3, 4, accuracy: 6)]
        let truth = [TruthPoint(t: 10, target: "tag", x: 0, y: 1), TruthPoint(t: 11, target: "tag", x: 0, y: 0),
                     TruthPoint(t: 1, target: "tag", x: 0, y: 0)]
        let report = Evaluator.evaluate(fixes: fixes, truth: truth)
        #expect(report.text == """
            protocol moving: 3 truth points, 2 scored, 1 missing
            error (m): median 3.000, p90 4.600, mean 3.000, rmse 3.606, max 5.000
            coverage68: 100.0% of scored fixes within horizontalAccuracy

            """)
        #expect(report.json == """
            {"protocol": "moving", "total": 3, "scored": 2, "missing": 1, "median": 3.0000, "p90": 4.6000, \
            "mean": 3.0000, "rmse": 3.6056, "max": 5.0000, "coverage68": 1.0000}
            """)
        let empty = Evaluator.evaluate(fixes: [], truth: truth, scoring: .stationary)
        #expect(empty.text == "protocol static: 3 truth points, 0 scored, 3 missing\nno scored points\n")
        #expect(empty.json.contains("\"median\": null"))
    }
}
