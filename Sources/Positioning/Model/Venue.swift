/// A site: where the anchors are and how their signal falls off (the venue file of `docs/formats.md`).
public struct Venue: Sendable, Hashable {
    /// Ties local (0, 0) to WGS84.
    public struct Origin: Sendable, Hashable {
        /// Latitude of local (0, 0), degrees.
        public var latitude: Double
        /// Longitude of local (0, 0), degrees.
        public var longitude: Double
        /// Azimuth of the local +y axis, degrees clockwise from true north.
        public var bearingDegrees: Double

        /// Creates an origin.
        public init(latitude: Double, longitude: Double, bearingDegrees: Double = 0) {
            self.latitude = latitude
            self.longitude = longitude
            self.bearingDegrees = bearingDegrees
        }
    }

    /// One floor of the venue.
    public struct Floor: Sendable, Hashable {
        /// The floor number anchors and fixes refer to.
        public var floor: Int
        /// Display name.
        public var name: String?
        /// Height of the floor above the venue's datum, metres.
        public var elevationMeters: Double
        /// Floor plan image path (resolved against the venue file's folder) and its bounds.
        public var planImage: String?
        /// Bounds of the plan image, [[minX, minY], [maxX, maxY]].
        public var planBounds: Bounds?

        /// Creates a floor.
        public init(floor: Int, name: String? = nil, elevationMeters: Double = 0, planImage: String? = nil,
                    planBounds: Bounds? = nil) {
            self.floor = floor
            self.name = name
            self.elevationMeters = elevationMeters
            self.planImage = planImage
            self.planBounds = planBounds
        }
    }

    /// An axis-aligned horizontal rectangle, metres.
    public struct Bounds: Sendable, Hashable {
        /// Smallest x and y.
        public var minX: Double, minY: Double
        /// Largest x and y.
        public var maxX: Double, maxY: Double

        /// Creates bounds.
        public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
            self.minX = minX
            self.minY = minY
            self.maxX = maxX
            self.maxY = maxY
        }

        /// Whether (x, y) lies inside or on the edge.
        public func contains(x: Double, y: Double) -> Bool {
            x >= minX && x <= maxX && y >= minY && y <= maxY
        }
    }

    /// A point of a floor plan, metres in the venue's local frame.
    public struct PlanPoint: Sendable, Hashable {
        /// Horizontal coordinates, metres.
        public var x: Double, y: Double

        /// Creates a point.
        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    /// A zone of one floor that a location can be "in" (a room, a corridor, a bay).
    public struct Room: Sendable, Hashable {
        /// Unique among the venue's rooms; what locations name as their `room`.
        public var id: String
        /// Display name.
        public var name: String?
        /// The floor the room is on.
        public var floor: Int
        /// The outer ring, at least three corners; the closing point (a repeat of the first) is optional and kept
        /// as given.
        public var polygon: [PlanPoint]
        /// Rings cut out of the room (a stairwell, a pillar), each like `polygon`.
        public var holes: [[PlanPoint]]
        /// A room people leave the premises through (a front door, a porch, a garage): a target that falls silent
        /// in or beside it has left (`PresenceRule`).
        public var exit: Bool

        /// Creates a room.
        public init(id: String, name: String? = nil, floor: Int = 0, polygon: [PlanPoint], holes: [[PlanPoint]] = [],
                    exit: Bool = false) {
            self.id = id
            self.name = name
            self.floor = floor
            self.polygon = polygon
            self.holes = holes
            self.exit = exit
        }
    }

    /// A passage through a wall (a door, an archway, an entrance): a line along the wall, kept for a motion model
    /// that knows where walls can be crossed (IMDF's `opening` features).
    public struct Opening: Sendable, Hashable {
        /// Unique among the venue's openings.
        public var id: String
        /// The floor the opening is on.
        public var floor: Int
        /// What passes through it, as the source says (IMDF: `pedestrian`, `automobile`, `emergencyexit`, ...).
        public var category: String?
        /// The segment (or polyline) along the wall, at least two points.
        public var line: [PlanPoint]

        /// Creates an opening.
        public init(id: String, floor: Int = 0, category: String? = nil, line: [PlanPoint]) {
            self.id = id
            self.floor = floor
            self.category = category
            self.line = line
        }
    }

    /// Display name of the site.
    public var name: String
    /// Geographic origin, when the venue is tied to the globe.
    public var origin: Origin?
    /// The site-wide path-loss model; anchors may override it.
    public var model: PathLossModel
    /// The anchors, in file order; ids are unique.
    public var anchors: [Anchor]
    /// The floors, when described.
    public var floors: [Floor]
    /// Where targets can be, when given.
    public var bounds: Bounds?
    /// The rooms, in file order; ids are unique.
    public var rooms: [Room]
    /// The openings (doors and passages in walls), in file order; ids are unique.
    public var openings: [Opening]
    /// The accuracy radius calibrated on held-out survey data, per target model (`RadiusCalibration`); empty
    /// when the venue was not calibrated that way.
    public var radius: RadiusCalibrations = RadiusCalibrations()
    /// The loss per wall between anchor and target fitted on a survey with the models (`PathLossCalibrator`'s
    /// `fitsWallLoss`), dB; nil when the venue was not fitted that way. The engine's measurement model uses it
    /// unless `EngineConfiguration.wallLossDB` says otherwise.
    public var wallLossDB: Double?

    /// Creates a venue.
    public init(name: String, origin: Origin? = nil, model: PathLossModel = .uncalibrated, anchors: [Anchor],
                floors: [Floor] = [], bounds: Bounds? = nil, rooms: [Room] = [], openings: [Opening] = []) {
        self.name = name
        self.origin = origin
        self.model = model
        self.anchors = anchors
        self.floors = floors
        self.bounds = bounds
        self.rooms = rooms
        self.openings = openings
    }
}

/// An end of a radio link whose position is known: a fixed beacon (self mode) or a fixed receiver (tag mode).
public struct Anchor: Sendable, Hashable {
    /// The anchor's id (a canonical beacon id or any string such as `rx-3`).
    public var id: String
    /// Position in the venue's local frame, metres (z is height above the anchor's floor; 0 when not given).
    public var x: Double, y: Double, z: Double
    /// The floor the anchor is on.
    public var floor: Int
    /// Per-anchor model override; nil fields fall back to the venue model.
    public var measuredPowerDBm: Double?
    /// Per-anchor path-loss exponent override.
    public var pathLossExponent: Double?
    /// Per-anchor shadowing sigma (from calibration), dB.
    public var shadowingSigmaDB: Double?
    /// How well the anchor's model is known, when a calibration says (a survey fit, or what the engine learned);
    /// nil: see `uncertainty`.
    public var calibration: AnchorCalibration?

    /// Creates an anchor.
    public init(id: String, x: Double, y: Double, z: Double = 0, floor: Int = 0, measuredPowerDBm: Double? = nil,
                pathLossExponent: Double? = nil, shadowingSigmaDB: Double? = nil) {
        self.id = id
        self.x = x
        self.y = y
        self.z = z
        self.floor = floor
        self.measuredPowerDBm = measuredPowerDBm
        self.pathLossExponent = pathLossExponent
        self.shadowingSigmaDB = shadowingSigmaDB
    }

    /// How far the anchor's model may be from the truth, as the engine takes it: its calibration's when it has one;
    /// none when it carries a whole fitted model of its own (measuredPower, exponent and shadowing sigma: a venue
    /// fitted before calibrations were written); else the prior of an uncalibrated anchor (`UncalibratedPrior`).
    public var uncertainty: AnchorUncertainty {
        if let calibration { return AnchorUncertainty(shared: .none, own: calibration.uncertainty) }
        if measuredPowerDBm != nil, pathLossExponent != nil, shadowingSigmaDB != nil { return .none }
        return .uncalibrated
    }

    /// The anchor's model: its overrides over the venue default.
    public func model(default base: PathLossModel) -> PathLossModel {
        PathLossModel(measuredPowerDBm: measuredPowerDBm ?? base.measuredPowerDBm,
                      pathLossExponent: pathLossExponent ?? base.pathLossExponent,
                      shadowingSigmaDB: shadowingSigmaDB ?? base.shadowingSigmaDB)
    }
}

/// How an anchor's model came to be, and how well it is known (the venue's `anchors[].calibration`).
public struct AnchorCalibration: Sendable, Hashable {
    /// Where the model came from.
    public enum Source: String, Sendable, Hashable, CaseIterable {
        /// A survey fit (`bluedot-calibrate fit`, `bluedot replay --calibrate`).
        case survey
        /// Learned by the engine from ordinary traffic (`SelfCalibration`), written into the venue by
        /// `bluedot-calibrate learned`.
        case learned
    }

    /// Where the model came from.
    public var source: Source
    /// The samples behind it.
    public var samples: Int
    /// Standard deviation of the level at 4 m and of the exponent (`ModelUncertainty`).
    public var uncertainty: ModelUncertainty

    /// Creates one.
    public init(source: Source, samples: Int, uncertainty: ModelUncertainty) {
        self.source = source
        self.samples = samples
        self.uncertainty = uncertainty
    }
}
