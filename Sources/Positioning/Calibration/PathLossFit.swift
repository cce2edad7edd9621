/// A fitted log-distance model for one anchor or a whole site, with the evidence behind it.
public struct PathLossFit: Sendable, Hashable {
    /// The fitted model (its `shadowingSigmaDB` is the robust residual sigma).
    public var model: PathLossModel
    /// Samples the fit used.
    public var samples: Int
    /// True when a parameter hit a physical sanity bound and was clamped.
    public var clamped: Bool
    /// The fit's standard errors: of its level at 4 m and of its exponent (`ModelUncertainty`); zero when not
    /// computed. They treat the samples as independent, which samples along a walk are not.
    public var uncertainty = ModelUncertainty.none

    /// Creates a fit.
    public init(model: PathLossModel, samples: Int, clamped: Bool) {
        self.model = model
        self.samples = samples
        self.clamped = clamped
    }
}
