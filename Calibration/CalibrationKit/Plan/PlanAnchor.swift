import Positioning

/// An anchor as the planner sees it: where it is and how its signal falls off.
public struct PlanAnchor: Sendable, Hashable {
    /// The anchor id (`candidate-1` ... for suggested positions).
    public var id: String
    /// Position, metres.
    public var x: Double, y: Double, z: Double
    /// Its path-loss model (the shadowing sigma is the noise of the bound).
    public var model: PathLossModel

    /// Creates a plan anchor.
    public init(id: String, x: Double, y: Double, z: Double, model: PathLossModel) {
        self.id = id
        self.x = x
        self.y = y
        self.z = z
        self.model = model
    }

    /// The venue's anchors with their models; `sigmaDB` overrides every shadowing sigma when given.
    public static func anchors(of venue: Venue, sigmaDB: Double? = nil) -> [PlanAnchor] {
        venue.anchors.map { a in
            var m = a.model(default: venue.model)
            if let sigmaDB { m.shadowingSigmaDB = sigmaDB }
            return PlanAnchor(id: a.id, x: a.x, y: a.y, z: a.z, model: m)
        }
    }
}
