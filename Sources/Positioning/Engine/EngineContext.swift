/// What every target's tracker shares: the venue resolved for estimation and the configured solvers.
struct EngineContext: Sendable {
    let configuration: EngineConfiguration
    /// The anchors: models and uncertainties change as self-calibration learns.
    var anchors: AnchorTable
    let bounds: Venue.Bounds?
    let solver: PositionSolver
    let trilaterator: Trilaterator
    /// The trilaterator for fixes fused into a running filter: its venue prior is weakened by
    /// `trackingPriorWeakening`, since the filter already holds the information and a prior counted at
    /// every tick would pull the track toward the venue's centre.
    let trackingTrilaterator: Trilaterator
    var grid: GridPosterior
    let targetHeightMeters: Double
    /// The venue's rooms, for each fix's `room` and `roomProbability`.
    let rooms: RoomMap
    /// The venue's radius calibration for the configured mode, when it has one and the configuration uses it.
    let radiusCalibration: RadiusCalibration?
    /// The venue's walls, when it has rooms and the configuration uses them (`EngineConfiguration.usesWalls`).
    let walls: WallMap?
    /// The walls with their loss for the measurement model, when `EngineConfiguration.wallLossDB` (or else the
    /// venue's fitted loss) is above 0 and the venue has rooms.
    let measurementWalls: WallAttenuation?

    /// What the fixes say of the shared model error, when the radius carries it (`usesSiteEvidence`) and an
    /// anchor has a shared part.
    var siteEvidence: SiteEvidence?
    /// The shared uncertainty the evidence gives, for the anchors that carry one; nil: the anchors' own.
    var evidentShared: ModelUncertainty?

    init(venue: Venue, configuration: EngineConfiguration) {
        self.configuration = configuration
        anchors = AnchorTable(venue: venue,
                              field: configuration.usesResidualField ? configuration.residualField : nil)
        if !configuration.usesModelUncertainty {
            anchors.uncertainties = anchors.uncertainties.map { _ in .none }
        }
        // (Without model uncertainty the anchors carry none, so no shared part either.)
        if configuration.usesSiteEvidence, anchors.sharedPrior != nil {
            siteEvidence = SiteEvidence(share: (configuration.selfCalibration ?? SelfCalibration.Settings())
                .effectiveSampleShare)
        }
        bounds = venue.bounds
        let loss = configuration.studentDegreesOfFreedom.map(RobustLoss.studentT) ?? .huber(configuration.huberThreshold)
        solver = PositionSolver(loss: loss, bounds: venue.bounds)
        trilaterator = Trilaterator(bounds: venue.bounds, anchors: venue.anchors,
                                    loss: loss)
        var tracking = trilaterator
        tracking.priorVariance = tracking.priorVariance.map { $0 * configuration.trackingPriorWeakening }
        trackingTrilaterator = tracking
        grid = GridPosterior(bounds: venue.bounds ?? Trilaterator.anchorArea(venue.anchors),
                             cellMeters: configuration.gridCellMeters, loss: loss)
        grid.commonOffsetSigmaDB = configuration.commonOffsetSigmaDB
        grid.bodyShadowSigmaDB = configuration.usesBodyShadow ? configuration.bodyShadowSigmaDB : nil
        grid.usesSpatialMedian = configuration.gridSpatialMedian
        let flat = venue.anchors.allSatisfy { $0.z == 0 }
        targetHeightMeters = configuration.targetHeightMeters ?? (flat ? 0 : 1.2)
        rooms = RoomMap(rooms: venue.rooms, bounds: venue.bounds)
        radiusCalibration = configuration.usesRadiusCalibration ? venue.radius[configuration.radiusMode] : nil
        walls = configuration.usesWalls ? WallMap(venue: venue) : nil
        measurementWalls = WallAttenuation(venue: venue, lossDB: configuration.wallLossDB ?? venue.wallLossDB ?? 0,
                                           map: walls)
    }
}
