import Foundation

/// The named survey points of a site, read from a points file.
///
/// One point per line: `NAME x y [z]` or `NAME,x,y[,z]`; blank lines and lines starting with `#` are skipped.
/// Names are unique. Errors name the file and line.
public struct SurveyPointList: Sendable, Hashable {
    /// The points in file order.
    public private(set) var points: [SurveyPoint]

    /// A points file that could not be read.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The file name.
        public var file: String
        /// 1-based line number.
        public var line: Int
        /// What is wrong.
        public var reason: String
        /// `file:line: reason`.
        public var description: String { "\(file):\(line): \(reason)" }
    }

    /// Creates a list from points that have names.
    public init(points: [SurveyPoint]) {
        self.points = points
    }

    /// Parses the text of a points file.
    public init(text: String, file: String) throws(ParseError) {
        var points: [SurveyPoint] = []
        var seen: Set<String> = []
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw).trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map(String.init)
            guard fields.count == 3 || fields.count == 4 else {
                throw ParseError(file: file, line: i + 1, reason: "expected NAME x y [z], got \(fields.count) fields")
            }
            let numbers = fields.dropFirst().map { Double($0) }
            guard numbers.allSatisfy({ $0?.isFinite == true }) else {
                throw ParseError(file: file, line: i + 1, reason: "x, y and z must be numbers")
            }
            let name = fields[0]
            guard seen.insert(name).inserted else {
                throw ParseError(file: file, line: i + 1, reason: "duplicate point name \(name)")
            }
            points.append(SurveyPoint(name: name, x: numbers[0]!, y: numbers[1]!,
                                      z: numbers.count == 3 ? numbers[2]! : nil))
        }
        self.points = points
    }

    /// The point with this name.
    public func point(named name: String) -> SurveyPoint? {
        points.first { $0.name == name }
    }

    /// Resolves an operator's answer: a point name from the list, else typed coordinates; nil when neither.
    public func resolve(_ answer: String) -> SurveyPoint? {
        let text = answer.trimmingCharacters(in: .whitespaces)
        return point(named: text) ?? SurveyPoint.coordinates(text)
    }
}
