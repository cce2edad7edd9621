/// The venue's anchors resolved once for the engine: ids to dense indices, positions and models.
struct AnchorTable: Sendable {
    /// Anchors in venue order.
    let anchors: [Anchor]
    /// Each anchor's effective model (its overrides over the venue default; what self-calibration learned).
    var models: [PathLossModel]
    /// How far each anchor's model may be from the truth (`Anchor.uncertainty`, then what self-calibration
    /// learned).
    var uncertainties: [AnchorUncertainty]
    /// Each anchor's height above the venue datum (floor elevation + z), metres.
    let heights: [Double]
    /// Dense index of each anchor id.
    let index: [String: Int]
    /// Elevation of each described floor, metres.
    let floorElevation: [Int: Double]
    /// Each anchor's bias field, when one is configured and the anchor was surveyed.
    var fields: [ResidualField.Layer?]

    /// Resolves a venue.
    init(venue: Venue, field: ResidualField? = nil) {
        anchors = venue.anchors
        fields = venue.anchors.map { field?.layers[$0.id] }
        models = venue.anchors.map { $0.model(default: venue.model) }
        uncertainties = venue.anchors.map(\.uncertainty)
        var elevation: [Int: Double] = [:]
        for f in venue.floors { elevation[f.floor] = f.elevationMeters }
        heights = venue.anchors.map { $0.z + (elevation[$0.floor] ?? 0) }
        floorElevation = elevation
        var index: [String: Int] = [:]
        for (i, a) in venue.anchors.enumerated() { index[a.id] = i }
        self.index = index
    }

    /// Number of anchors.
    var count: Int { anchors.count }

    /// The shared part of the uncalibrated anchors' uncertainty (one for the site); nil when no anchor has one.
    var sharedPrior: ModelUncertainty? { uncertainties.first { !$0.shared.isZero }?.shared }
}
