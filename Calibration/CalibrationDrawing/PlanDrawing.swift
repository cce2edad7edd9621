import CalibrationKit
import Foundation
import Positioning

/// Draws a predicted-accuracy map: the CRLB per grid cell in a colour scale over the floor plan, cells with
/// fewer than three anchors hatched (outside coverage), cells with no bound grey, the anchors as white dots with
/// labels, suggested beacons as red numbered crosses, and a legend.
///
/// The venue's x grows to the right and y upward (the image is flipped so the plan reads like a map).
public struct PlanDrawing {
    /// The map to draw.
    public var map: AccuracyMap
    /// Existing anchors.
    public var anchors: [PlanAnchor]
    /// Suggested new beacons.
    public var suggestions: [AccuracyPlanner.Suggestion]
    /// Floor plan image (PNG) and the venue rectangle it covers, when the venue has one.
    public var plan: (image: String, bounds: Venue.Bounds)?
    /// The floor's walls, drawn as a thick line.
    public var outline: FloorOutline?
    /// Title line.
    public var title: String
    /// The colour scale's upper end, metres; nil picks `ColorScale.upperEnd`.
    public var scaleMaximum: Double?
    /// Pixels per metre of the venue.
    public var pixelsPerMeter: Double = 48

    /// Creates a drawing.
    public init(map: AccuracyMap, anchors: [PlanAnchor], suggestions: [AccuracyPlanner.Suggestion] = [],
                plan: (image: String, bounds: Venue.Bounds)? = nil, title: String) {
        self.map = map
        self.anchors = anchors
        self.suggestions = suggestions
        self.plan = plan
        self.title = title
    }

    /// Writes the drawing to a .png, .svg or .pdf file.
    public func write(to path: String) throws(DrawingError) {
        let margin = 40.0, top = 76.0, legendWidth = 150.0
        let s = min(pixelsPerMeter, 1000 / max(map.maxX - map.minX, map.maxY - map.minY, 1))
        let width = (map.maxX - map.minX) * s, height = (map.maxY - map.minY) * s
        let canvas = try CairoCanvas(path: path, width: (margin * 2 + width + legendWidth).rounded(.up),
                                     height: (top + height + margin + 24).rounded(.up))
        func px(_ x: Double) -> Double { margin + (x - map.minX) * s }
        func py(_ y: Double) -> Double { top + (map.maxY - y) * s }

        canvas.color(1, 1, 1)
        canvas.rectangle(0, 0, margin * 2 + width + legendWidth + 1, top + height + margin + 25)
        canvas.fill()
        canvas.color(0, 0, 0)
        canvas.text(title, margin, 24, size: 15, bold: true)
        let located = map.points.isEmpty ? 0 : Double(map.points.filter { $0.crlb != nil }.count)
            / Double(map.points.count)
        var summary = String(format: "CRLB median %.2f m, p90 %.2f m; coverage (>= 3 anchors) %.0f%%",
                             map.percentile(50), map.percentile(90), map.share(withAtLeast: 3) * 100)
        if located < 1 {
            summary += String(format: "; no bound on %.0f%% (counted as %.0f m)", (1 - located) * 100, map.capMeters)
        }
        canvas.text(summary, margin, 44, size: 12)

        var planShown = false
        if let plan {
            planShown = canvas.image(png: plan.image, x: px(plan.bounds.minX), y: py(plan.bounds.maxY),
                                     width: (plan.bounds.maxX - plan.bounds.minX) * s,
                                     height: (plan.bounds.maxY - plan.bounds.minY) * s, alpha: 1)
        }
        let scale = ColorScale(minimum: 0, maximum: scaleMaximum
                               ?? ColorScale.upperEnd(of: map.points.compactMap(\.crlb)))
        let half = map.cellMeters / 2
        let alpha = planShown ? 0.6 : 1
        canvas.antialias(false)
        for p in map.points {
            let x0 = px(max(p.x - half, map.minX)), x1 = px(min(p.x + half, map.maxX))
            let y0 = py(min(p.y + half, map.maxY)), y1 = py(max(p.y - half, map.minY))
            if let crlb = p.crlb {
                canvas.color(scale.color(crlb), alpha: alpha)
            } else {
                canvas.color(0.75, 0.75, 0.75, alpha: alpha)
            }
            canvas.rectangle(x0, y0, x1 - x0 + 0.5, y1 - y0 + 0.5)
            canvas.fill()
            if p.anchors < 3 {
                // Hatch: outside coverage.
                canvas.color(1, 1, 1, alpha: 0.8)
                canvas.line(x0, y1, x1, y0)
                canvas.stroke(width: 1)
            }
        }
        canvas.antialias(true)
        canvas.color(0, 0, 0)
        canvas.rectangle(px(map.minX), py(map.maxY), width, height)
        canvas.stroke(width: 1)
        if let outline {
            canvas.color(0.1, 0.1, 0.1)
            canvas.polygon(outline.vertices.map { (px($0.x), py($0.y)) })
            canvas.stroke(width: 3)
        }
        drawAnchors(canvas, px: px, py: py)
        drawLegend(canvas, scale: scale, x: margin * 1.5 + width, y: top, height: min(height, 320))
        canvas.color(0.2, 0.2, 0.2)
        canvas.text(String(format: "x %.1f .. %.1f m, y %.1f .. %.1f m, grid %.2f m", map.minX, map.maxX, map.minY,
                           map.maxY, map.cellMeters), margin, top + height + 20, size: 11)
        try canvas.finish()
    }

    private func drawAnchors(_ canvas: CairoCanvas, px: (Double) -> Double, py: (Double) -> Double) {
        for a in anchors {
            canvas.circle(px(a.x), py(a.y), 6)
            canvas.color(1, 1, 1)
            canvas.fill()
            canvas.circle(px(a.x), py(a.y), 6)
            canvas.color(0, 0, 0)
            canvas.stroke(width: 2)
            let label = Self.shortLabel(a.id)
            canvas.color(1, 1, 1, alpha: 0.85)
            canvas.rectangle(px(a.x) + 8, py(a.y) - 18, canvas.textWidth(label, size: 11) + 4, 14)
            canvas.fill()
            canvas.color(0, 0, 0)
            canvas.text(label, px(a.x) + 10, py(a.y) - 7, size: 11)
        }
        for s in suggestions {
            let x = px(s.x), y = py(s.y)
            canvas.color(0.85, 0.1, 0.1)
            canvas.line(x - 8, y - 8, x + 8, y + 8)
            canvas.line(x - 8, y + 8, x + 8, y - 8)
            canvas.stroke(width: 3.5)
            canvas.text("#\(s.rank)", x + 10, y + 14, size: 13, bold: true)
        }
    }

    private func drawLegend(_ canvas: CairoCanvas, scale: ColorScale, x: Double, y: Double, height: Double) {
        canvas.color(0, 0, 0)
        canvas.text("CRLB (m)", x, y + 10, size: 12, bold: true)
        let barTop = y + 20, barHeight = max(height - 120, 80), steps = 64
        for k in 0..<steps {
            let v = scale.maximum * (1 - Double(k) / Double(steps))
            canvas.color(scale.color(v))
            canvas.rectangle(x, barTop + Double(k) * barHeight / Double(steps), 20, barHeight / Double(steps) + 0.5)
            canvas.fill()
        }
        canvas.color(0, 0, 0)
        canvas.rectangle(x, barTop, 20, barHeight)
        canvas.stroke(width: 1)
        // Ticks at a round step (1, 2, 2.5 or 5 × 10^k, about four of them), and the top labelled ">= max".
        let raw = scale.maximum / 4, magnitude = pow(10, (log10(raw)).rounded(.down))
        let step = [1.0, 2, 2.5, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? raw
        var ticks = stride(from: 0.0, to: scale.maximum - step * 0.3, by: step).map { ($0, Self.metres($0)) }
        ticks.append((scale.maximum, ">= " + Self.metres(scale.maximum)))
        for (v, label) in ticks {
            let ty = barTop + barHeight * (1 - v / scale.maximum)
            canvas.line(x + 20, ty, x + 25, ty)
            canvas.stroke(width: 1)
            canvas.text(label, x + 28, ty + 4, size: 11)
        }
        var ly = barTop + barHeight + 22
        canvas.color(0.75, 0.75, 0.75)
        canvas.rectangle(x, ly - 10, 14, 12)
        canvas.fill()
        canvas.color(0, 0, 0)
        canvas.text("no bound (< 2)", x + 20, ly, size: 11)
        ly += 18
        canvas.color(0.4, 0.4, 0.4)
        canvas.rectangle(x, ly - 10, 14, 12)
        canvas.fill()
        canvas.color(1, 1, 1)
        canvas.line(x, ly + 2, x + 14, ly - 10)
        canvas.stroke(width: 1)
        canvas.color(0, 0, 0)
        canvas.text("< 3 anchors", x + 20, ly, size: 11)
        ly += 18
        canvas.circle(x + 7, ly - 4, 5)
        canvas.stroke(width: 2)
        canvas.text("anchor", x + 20, ly, size: 11)
        if !suggestions.isEmpty {
            ly += 18
            canvas.color(0.85, 0.1, 0.1)
            canvas.line(x + 2, ly - 9, x + 12, ly + 1)
            canvas.line(x + 2, ly + 1, x + 12, ly - 9)
            canvas.stroke(width: 2.5)
            canvas.color(0, 0, 0)
            canvas.text("suggested", x + 20, ly, size: 11)
        }
    }

    /// A tick label: one decimal when that is exact, else two.
    static func metres(_ v: Double) -> String {
        abs(v * 10 - (v * 10).rounded()) < 1e-9 ? String(format: "%.1f", v) : String(format: "%.2f", v)
    }

    /// A short anchor label: the last field of a canonical id (`ibeacon:…:1:7` → `1:7`), else the id.
    static func shortLabel(_ id: String) -> String {
        let parts = id.split(separator: ":")
        if parts.count >= 3, parts[0] == "ibeacon" || parts[0] == "altbeacon" {
            return parts.suffix(2).joined(separator: ":")
        }
        if parts.count == 3, parts[0] == "eddystone" { return String(parts[2].suffix(4)) }
        return id.count > 14 ? String(id.suffix(6)) : id
    }
}
