import Foundation

/// The walls of a floor as one closed polygon (e.g. the WUT dataset's `layout.csv`): limits the planned area to
/// the inside and is drawn over the map.
public struct FloorOutline: Sendable, Hashable {
    /// Vertices in order, metres; the last connects back to the first.
    public var vertices: [SIMD2<Double>]

    /// A CSV line that is not a vertex.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The file, line and reason.
        public var description: String
    }

    /// Creates an outline.
    public init(vertices: [SIMD2<Double>]) {
        self.vertices = vertices
    }

    /// Reads `x,y` lines; an optional header line `x,y` and blank lines are skipped. At least three vertices.
    public init(csv text: String, file: String) throws(ParseError) {
        var vertices: [SIMD2<Double>] = []
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || (i == 0 && line.lowercased().hasPrefix("x")) { continue }
            let fields = line.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard fields.count >= 2, let x = fields[0], let y = fields[1], x.isFinite, y.isFinite else {
                throw ParseError(description: "\(file):\(i + 1): expected x,y numbers")
            }
            vertices.append(SIMD2(x, y))
        }
        guard vertices.count >= 3 else { throw ParseError(description: "\(file): fewer than 3 vertices") }
        self.vertices = vertices
    }

    /// Whether (x, y) is inside, by the even-odd rule (a horizontal ray crossing the edges an odd number of times).
    public func contains(x: Double, y: Double) -> Bool {
        var inside = false
        var j = vertices.count - 1
        for i in vertices.indices {
            let a = vertices[i], b = vertices[j]
            if (a.y > y) != (b.y > y) {
                let crossX = a.x + (y - a.y) / (b.y - a.y) * (b.x - a.x)
                if x < crossX { inside.toggle() }
            }
            j = i
        }
        return inside
    }
}
