/// A fitted log-distance model for one anchor or a whole site, with the evidence behind it.
public struct PathLossFit: Sendable, Hashable {
    /// The fitted model (its `shadowingSigmaDB` is the robust residual sigma).
    public var model: PathLossModel
    /// Samples the fit used.
    public var samples: Int
    /// True when a parameter hit a physical sanity bound and was clamped.
    public var clamped: Bool

    /// Creates a fit.
    public init(model: PathLossModel, samples: Int, clamped: Bool) {
        self.model = model
        self.samples = samples
        self.clamped = clamped
    }
}
