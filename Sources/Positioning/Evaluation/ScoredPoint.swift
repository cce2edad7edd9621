import BlueDotCore
/// One truth point and the fix it was scored against.
public struct ScoredPoint: Sendable, Hashable {
    /// The true position.
    public var truth: TruthPoint
    /// The fix chosen by the protocol.
    public var fix: Location
    /// Horizontal distance between the fix and the truth, metres.
    public var errorMeters: Double

    /// Creates a scored point.
    public init(truth: TruthPoint, fix: Location, errorMeters: Double) {
        self.truth = truth
        self.fix = fix
        self.errorMeters = errorMeters
    }

    /// Whether the truth lies within the fix's 68% accuracy radius.
    public var isCovered: Bool { errorMeters <= fix.horizontalAccuracyMeters }
}
