/// Angles in degrees, clockwise, as courses, headings and map rotations are given.
public enum Degrees {
    /// `degrees` turned into [0, 360).
    public static func normalized(_ degrees: Double) -> Double {
        let r = degrees.truncatingRemainder(dividingBy: 360)
        return r < 0 ? r + 360 : r
    }
}
