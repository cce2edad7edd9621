import CalibrationDrawing
import CalibrationKit
import Foundation
import Positioning
import Testing

@Suite struct PlanDrawingTests {
    static func map() -> (AccuracyMap, [PlanAnchor]) {
        let model = PathLossModel(measuredPowerDBm: -59, pathLossExponent: 2, shadowingSigmaDB: 4)
        let anchors = [(0.0, 0.0), (8, 0), (8, 6)].enumerated().map { i, p in
            PlanAnchor(id: "a\(i)", x: p.0, y: p.1, z: 2.5, model: model)
        }
        var planner = AccuracyPlanner()
        planner.sensitivityDBm = -75  // heard within ~6.3 m: coverage holes in the corners
        return (planner.map(anchors: anchors, area: Venue.Bounds(minX: 0, minY: 0, maxX: 8, maxY: 6)), anchors)
    }

    /// One drawing, three formats, each with its file signature; the PNG has the drawing's size.
    @Test func writesPNGSVGAndPDF() throws {
        let folder = try CalibrationFixture.scratch()
        let (map, anchors) = Self.map()
        let drawing = PlanDrawing(map: map, anchors: anchors, title: "test")
        for ext in ["png", "svg", "pdf"] { try drawing.write(to: folder + "/plan." + ext) }
        let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/plan.png")))
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        // IHDR width and height, big-endian at bytes 16..<24: 8 m × 48 px + 2 × 40 margin + 150 legend = 614.
        let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 614)
        let svg = try String(contentsOfFile: folder + "/plan.svg", encoding: .utf8)
        #expect(svg.contains("<svg"))
        let pdf = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/plan.pdf")))
        #expect(Array(pdf.prefix(5)) == Array("%PDF-".utf8))
        #expect(throws: DrawingError.self) { try drawing.write(to: folder + "/plan.gif") }
    }

    /// The colour scale runs from dark (small error) to bright (large) and clamps outside its range.
    @Test func colorScaleIsMonotoneInBrightness() {
        let scale = ColorScale(minimum: 0, maximum: 4)
        let lum = stride(from: 0.0, through: 4, by: 0.25).map { v -> Double in
            let c = scale.color(v)
            return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b
        }
        #expect(zip(lum, lum.dropFirst()).allSatisfy { $0 < $1 })
        #expect(scale.color(9) == scale.color(4) && scale.color(-1) == scale.color(0))
    }
}

@Suite struct FloorOutlineTests {
    /// An L-shaped flat: the notch is outside, both arms inside; the header line is skipped; the planner drops
    /// the points outside (3/4 of a 4 m square grid of 1 m cells remain).
    @Test func lShapeLimitsThePlannedArea() throws {
        let outline = try FloorOutline(csv: "x,y\n0,0\n4,0\n4,2\n2,2\n2,4\n0,4\n", file: "l.csv")
        #expect(outline.contains(x: 1, y: 1) && outline.contains(x: 3, y: 1) && outline.contains(x: 1, y: 3))
        #expect(!outline.contains(x: 3, y: 3) && !outline.contains(x: 5, y: 1))
        var planner = AccuracyPlanner()
        planner.cellMeters = 1
        planner.outline = outline
        #expect(planner.gridPoints(Venue.Bounds(minX: 0, minY: 0, maxX: 4, maxY: 4)).points.count == 12)
        #expect(throws: FloorOutline.ParseError.self) { try FloorOutline(csv: "0,0\n1,x\n", file: "bad.csv") }
    }

    /// A floor plan PNG is painted under the map (here a previous map stands in for the plan): the image changes.
    @Test func paintsTheFloorPlan() throws {
        let folder = try CalibrationFixture.scratch()
        let (map, anchors) = PlanDrawingTests.map()
        try PlanDrawing(map: map, anchors: anchors, title: "plain").write(to: folder + "/plain.png")
        var over = PlanDrawing(map: map, anchors: anchors, title: "plain")
        over.plan = (folder + "/plain.png", Venue.Bounds(minX: 0, minY: 0, maxX: 8, maxY: 6))
        try over.write(to: folder + "/over.png")
        let a = try Data(contentsOf: URL(fileURLWithPath: folder + "/plain.png"))
        let b = try Data(contentsOf: URL(fileURLWithPath: folder + "/over.png"))
        #expect(a != b)
    }
}
