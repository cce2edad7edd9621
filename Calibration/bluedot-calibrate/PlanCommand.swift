import ArgumentParser
import CalibrationDrawing
import CalibrationKit
import Formats
import Foundation
import Positioning
import SystemIO

/// `bluedot-calibrate plan`: the predicted accuracy map of a venue (Cramér-Rao bound), placement suggestions
/// and the anchor ranking.
struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Map the predicted accuracy (CRLB) over a venue; suggest where extra beacons help most.",
        discussion: """
            Per grid cell: sqrt(trace of the inverse 2x2 Fisher information) of the log-distance model with \
            shadowing sigma, for one packet per anchor heard above --sensitivity, target at --height. Cells with \
            fewer than 2 anchors (or collinear ones) have no bound: null in the report, grey on the map, counted \
            as the area's diagonal in median and p90. Coverage = share of cells hearing >= 3 anchors (unhatched).
            """
    )

    @Option(help: "Venue JSON file.")
    var venue: String

    @Option(help: "Shadowing sigma in dB for every anchor (default: each anchor's, else the venue model's).")
    var sigma: Double?

    @Option(help: "Grid cell, metres.")
    var grid: Double = 0.5

    @Option(help: "Target height, metres.")
    var height: Double = 1.2

    @Option(help: "Weakest RSSI counted as heard, dBm.")
    var sensitivity: Double = -95

    @Option(help: "Image to write: .png, .svg or .pdf.")
    var out: String

    @Option(help: "JSON report to write.")
    var report: String?

    @Option(help: "Propose this many extra beacons.")
    var suggest: Int = 0

    @Option(help: "Height of suggested beacons, metres (default: the anchors' median height).")
    var suggestHeight: Double?

    @Option(help: "Upper end of the colour scale, metres (default: p95 of the map rounded up).")
    var scaleMax: Double?

    @Option(help: "Walls as a CSV polygon (x,y per line): plan only inside, draw the walls.")
    var outline: String?

    @Option(help: "Title on the image (default: the venue's name).")
    var title: String?

    func validate() throws {
        guard grid > 0.01, grid <= 10 else { throw ValidationError("--grid must be in (0.01, 10] m") }
        if let sigma, !(sigma > 0) { throw ValidationError("--sigma must be positive") }
        guard (0...50).contains(suggest) else { throw ValidationError("--suggest must be in 0...50") }
        let ext = out.split(separator: ".").last.map { $0.lowercased() } ?? ""
        guard ["png", "svg", "pdf"].contains(ext) else { throw ValidationError("--out must end in .png, .svg or .pdf") }
    }

    func run() throws {
        let site = try VenueLoader.load(path: venue)
        var planner = AccuracyPlanner()
        planner.cellMeters = grid
        planner.targetHeightMeters = height
        planner.sensitivityDBm = sensitivity
        if let outline {
            planner.outline = try FloorOutline(csv: try WholeFile.text(outline), file: outline)
        }
        let area = planner.area(for: site)
        let anchors = PlanAnchor.anchors(of: site, sigmaDB: sigma)
        let map = planner.map(anchors: anchors, area: area)
        var suggestions: [AccuracyPlanner.Suggestion] = []
        if suggest > 0 {
            let heights = anchors.map(\.z).sorted()
            let z = suggestHeight ?? (heights.isEmpty ? 2.5 : heights[heights.count / 2])
            var model = site.model
            if let sigma { model.shadowingSigmaDB = sigma }
            // Candidates on a grid of about 1 m (or the map's grid when coarser).
            let stride = max(Int((1 / grid).rounded()), 1)
            suggestions = planner.suggest(count: suggest, anchors: anchors, area: area, z: z, model: model,
                                          candidateStride: stride)
        }
        let ranking = planner.rank(anchors: anchors, area: area)
        let parameters = PlanReport.Parameters(grid: grid, height: height, sensitivity: sensitivity, sigma: sigma,
                                               bounds: [[area.minX, area.minY], [area.maxX, area.maxY]])
        let plan = PlanReport(map: map, parameters: parameters, suggestions: suggestions, anchorRanking: ranking)
        print(plan.text, terminator: "")
        if let report { try plan.json().write(toFile: report, atomically: true, encoding: .utf8) }
        var drawing = PlanDrawing(map: map, anchors: anchors, suggestions: suggestions, title: title ?? site.name)
        drawing.scaleMaximum = scaleMax
        drawing.outline = planner.outline
        if let floor = site.floors.first(where: { $0.planImage != nil }), let image = floor.planImage,
           let bounds = floor.planBounds ?? site.bounds {
            drawing.plan = (image, bounds)
        }
        try drawing.write(to: out)
        FileHandle.standardError.write(Data("plan: wrote \(out)\n".utf8))
    }
}
