/// The venue's anchors resolved once for the engine: ids to dense indices, positions and models.
public struct AnchorTable: Sendable {
    /// Anchors in venue order.
    public let anchors: [Anchor]
    /// Each anchor's effective model (its overrides over the venue default).
    public let models: [PathLossModel]
    /// Each anchor's height above the venue datum (floor elevation + z), metres.
    public let heights: [Double]
    /// Dense index of each anchor id.
    public let index: [String: Int]

    /// Resolves a venue.
    public init(venue: Venue) {
        anchors = venue.anchors
        models = venue.anchors.map { $0.model(default: venue.model) }
        var elevation: [Int: Double] = [:]
        for f in venue.floors { elevation[f.floor] = f.elevationMeters }
        heights = venue.anchors.map { $0.z + (elevation[$0.floor] ?? 0) }
        var index: [String: Int] = [:]
        for (i, a) in venue.anchors.enumerated() { index[a.id] = i }
        self.index = index
    }

    /// Number of anchors.
    public var count: Int { anchors.count }
}
