import Foundation

/// A surveyed position: where the operator holds the target while BlueDot records, in venue metres.
public struct SurveyPoint: Sendable, Hashable {
    /// The point's name (from a points file), or nil for typed coordinates.
    public var name: String?
    /// Horizontal position, metres.
    public var x: Double, y: Double
    /// Height above the floor, metres; nil uses the session's default height.
    public var z: Double?

    /// Creates a point.
    public init(name: String? = nil, x: Double, y: Double, z: Double? = nil) {
        self.name = name
        self.x = x
        self.y = y
        self.z = z
    }

    /// Parses typed coordinates `x,y` or `x,y,z` (spaces allowed around the numbers); nil when it is not that.
    public static func coordinates(_ text: String) -> SurveyPoint? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 || parts.count == 3 else { return nil }
        let numbers = parts.compactMap { Double($0) }
        guard numbers.count == parts.count, numbers.allSatisfy(\.isFinite) else { return nil }
        return SurveyPoint(x: numbers[0], y: numbers[1], z: numbers.count == 3 ? numbers[2] : nil)
    }

    /// A short label for prompts and logs: the name, or the coordinates.
    public var label: String {
        if let name { return name }
        var s = "\(x),\(y)"
        if let z { s += ",\(z)" }
        return s
    }
}
