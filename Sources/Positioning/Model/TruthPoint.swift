/// The true position of a target at an instant: a line of a truth file, or the `truth` of a survey line.
public struct TruthPoint: Sendable, Hashable {
    /// Time, seconds on the observations' origin.
    public var t: Double
    /// The target this is the position of.
    public var target: String
    /// Position in the venue's local frame, metres.
    public var x: Double, y: Double
    /// Height, metres, when given.
    public var z: Double?

    /// Creates a truth point.
    public init(t: Double, target: String = Observation.selfTarget, x: Double, y: Double, z: Double? = nil) {
        self.t = t
        self.target = target
        self.x = x
        self.y = y
        self.z = z
    }
}
