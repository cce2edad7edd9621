import CalibrationKit
import Foundation
import Positioning
import Testing

@Suite struct AccuracyPlannerTests {
    /// Four anchors at the corners of a square room of side a, at height z; target at the centre, height h.
    ///
    /// Closed form. Every anchor sees the centre at horizontal offset (±a/2, ±a/2) and 3-D distance
    /// d² = a²/2 + (z − h)². With b = 10 n / (σ ln 10), anchor i contributes b² uᵢuᵢᵀ / d⁴ with
    /// uᵢ = (±a/2, ±a/2). Summed over the four sign pairs the off-diagonal terms cancel and each diagonal term is
    /// 4 · a²/4 = a², so J = (b² a² / d⁴) I. Then trace J⁻¹ = 2 d⁴ / (b² a²) and
    ///
    ///     CRLB = sqrt(trace J⁻¹) = √2 · d² / (b · a) = √2 · σ · ln 10 · d² / (10 · n · a).
    ///
    /// a = 10 m, z = 2.5 m, h = 1.2 m, n = 2, σ = 4 dB: d² = 51.69 m², CRLB = √2 · 4 · 2.302585 · 51.69 / 200
    /// = 3.3664 m.
    @Test func matchesTheClosedFormAtTheCentreOfASquare() {
        let a = 10.0, z = 2.5, h = 1.2, n = 2.0, sigma = 4.0
        let model = PathLossModel(measuredPowerDBm: -59, pathLossExponent: n, shadowingSigmaDB: sigma)
        let anchors = [(0.0, 0.0), (a, 0), (a, a), (0, a)].enumerated().map { i, p in
            PlanAnchor(id: "c\(i)", x: p.0, y: p.1, z: z, model: model)
        }
        var planner = AccuracyPlanner()
        planner.cellMeters = 2  // cell centres 1, 3, 5, 7, 9: one lands on the centre
        planner.targetHeightMeters = h
        let map = planner.map(anchors: anchors, area: Venue.Bounds(minX: 0, minY: 0, maxX: a, maxY: a))
        let centre = map.points.first { $0.x == 5 && $0.y == 5 }!
        let d2 = a * a / 2 + (z - h) * (z - h)
        let closedForm = 2.0.squareRoot() * sigma * log(10.0) * d2 / (10 * n * a)
        let error = abs(centre.crlb! - closedForm) / closedForm
        print(String(format: "plan vs closed form at the centre: %.6f m vs %.6f m, relative error %.2e",
                     centre.crlb!, closedForm, error))
        #expect(error < 0.05)
        #expect(abs(closedForm - 3.3664) < 1e-3)
        #expect(centre.anchors == 4)
    }

    /// Fewer than two anchors heard, or anchors collinear with the point, give no bound; anchors below the
    /// sensitivity threshold do not count.
    @Test func missingBoundsAndSensitivity() {
        let model = PathLossModel(measuredPowerDBm: -59, pathLossExponent: 2, shadowingSigmaDB: 4)
        let one = [PlanAnchor(id: "a", x: 0, y: 0, z: 1.2, model: model)]
        let planner = AccuracyPlanner()
        #expect(planner.map(anchors: one, area: Venue.Bounds(minX: 0, minY: 0, maxX: 4, maxY: 4))
            .points.allSatisfy { $0.crlb == nil && $0.anchors == 1 })
        // Two anchors on the x axis, target on the same line: no information across it.
        var f = FisherInformation()
        f.add(PlanAnchor(id: "a", x: 0, y: 0, z: 1.2, model: model), x: 5, y: 0, height: 1.2)
        f.add(PlanAnchor(id: "b", x: 10, y: 0, z: 1.2, model: model), x: 5, y: 0, height: 1.2)
        #expect(f.crlbMeters == nil)
        // -59 - 20 log10(d) >= -95 needs d <= 63 m: an anchor 100 m away is not heard.
        var far = planner
        far.sensitivityDBm = -95
        #expect(far.information(PlanAnchor(id: "f", x: 100, y: 0, z: 1.2, model: model), x: 0, y: 0).anchors == 0)
        #expect(far.information(PlanAnchor(id: "n", x: 50, y: 0, z: 1.2, model: model), x: 0, y: 0).anchors == 1)
    }

    /// Suggestions lower the p90 step by step and fill the empty half of a room; the ranking is sorted and puts
    /// the anchor that alone covers a region first.
    @Test func suggestionsAndRanking() {
        let model = PathLossModel(measuredPowerDBm: -59, pathLossExponent: 2, shadowingSigmaDB: 4)
        let anchors = [(0.0, 0.0), (6, 0), (0, 6), (6, 6), (20, 3)].enumerated().map { i, p in
            PlanAnchor(id: "a\(i)", x: p.0, y: p.1, z: 2.5, model: model)
        }
        var planner = AccuracyPlanner()
        planner.cellMeters = 1
        let area = Venue.Bounds(minX: 0, minY: 0, maxX: 20, maxY: 6)
        let suggestions = planner.suggest(count: 2, anchors: anchors, area: area, z: 2.5, model: model)
        #expect(suggestions.count == 2)
        #expect(suggestions[0].p90After < suggestions[0].p90Before)
        #expect(suggestions[1].p90Before == suggestions[0].p90After)
        #expect(suggestions[1].p90After <= suggestions[1].p90Before)
        #expect(suggestions[0].x > 6, "first suggestion at \(suggestions[0].x) should go to the empty east half")
        let ranking = planner.rank(anchors: anchors, area: area)
        #expect(ranking.count == 5)
        #expect(zip(ranking, ranking.dropFirst()).allSatisfy { $0.p90Increase >= $1.p90Increase })
        #expect(ranking[0].id == "a4")
    }

    /// The report's JSON lists every point with x, y, crlb (null when missing) and anchors.
    @Test func reportListsEveryPoint() throws {
        let model = PathLossModel(measuredPowerDBm: -59, pathLossExponent: 2, shadowingSigmaDB: 4)
        let anchors = [PlanAnchor(id: "a", x: 0, y: 0, z: 2, model: model)]
        let planner = AccuracyPlanner()
        let area = Venue.Bounds(minX: 0, minY: 0, maxX: 2, maxY: 1)
        let map = planner.map(anchors: anchors, area: area)
        let report = PlanReport(map: map, parameters: PlanReport.Parameters(grid: 0.5, height: 1.2, sensitivity: -95,
                                                                            sigma: nil, bounds: [[0, 0], [2, 1]]),
                                suggestions: [], anchorRanking: [])
        let json = try JSONSerialization.jsonObject(with: Data(try report.json().utf8)) as! [String: Any]
        let points = json["points"] as! [[String: Any]]
        #expect(points.count == 8)
        #expect(points.allSatisfy { $0["x"] is Double && $0["y"] is Double && $0["anchors"] as? Int == 1 })
        #expect(points.allSatisfy { $0["crlb"] is NSNull })
        #expect(report.summary.p90 == map.capMeters && report.summary.coverage == 0)
    }
}
