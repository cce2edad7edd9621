/// What the residuals at the engine's fixes say of the site's model against the models in use
/// (`PositioningEngine.siteModelError`; the gateway's `bluedot_site_model_*` metrics).
public struct SiteModelError: Sendable, Hashable {
    /// The posterior mean of the site's level error at 4 m, dB: positive, the site is louder than the models say.
    public var levelDB: Double
    /// The posterior mean of the site's exponent error.
    public var exponent: Double
    /// What the radius carries of each (`√(μ² + V)`): the expected size of the error of the models in use.
    public var uncertainty: ModelUncertainty
    /// Ticks behind it since the models last changed.
    public var ticks: Int
}

/// What the engine's own fixes say about the shared part of its uncalibrated anchors' model error, with or without
/// self-calibration (docs/positioning.md, "No survey": "Evidence from the residuals").
///
/// When nobody surveyed a site, every anchor shares one error `e = (ΔP, Δn)`: the site's level at 4 m and its
/// exponent against the models in use. At a fix p each shared anchor's residual is then about
/// `rᵢ = zᵢ − hᵢ(p) ≈ uᵢ · e + noise`, `uᵢ = (1, −Lᵢ)`, `Lᵢ = 10 log10(dᵢ / 4 m)`: a common level offset cannot be
/// taken up by moving the fix (it would have to move away from every anchor at once), so it stays in the residuals.
/// The evidence is the Bayesian linear regression of the residuals on u over the newest ticks, with the shared
/// prior as its prior and each measurement counted for `share` (ticks of a target are strongly correlated, as in
/// `SelfCalibration.Settings.effectiveSampleShare`): the posterior `N(μ, V)` of e. The models in use are not changed
/// (that is self-calibration's work); what the radius carries becomes the expected square of the error the models
/// in use have, `μ² + V` per part, in place of the prior's variance. It shrinks where the default happens to be
/// right, and grows where it is far off.
struct SiteEvidence: Sendable {
    /// Ticks of memory: each tick's weight decays by `1 − 1 / memoryTicks`.
    var memoryTicks = 600.0
    /// What one measurement counts for (`SelfCalibration.Settings.effectiveSampleShare`).
    let share: Double
    /// Huber threshold on a residual around the current estimate, in the measurement's sigmas.
    var huberThreshold = 2.0

    /// The normal equations, Σ w u uᵀ / σ² and Σ w u r / σ², decayed.
    private var a00 = 0.0, a01 = 0.0, a11 = 0.0, b0 = 0.0, b1 = 0.0
    /// Ticks taken since the last reset.
    private(set) var ticks = 0
    /// The posterior mean of e after the last tick, for the Huber weights of the next.
    private var mean = (level: 0.0, exponent: 0.0)

    init(share: Double) {
        self.share = share
    }

    /// Forgets everything: the models in use changed.
    mutating func reset() {
        self = SiteEvidence(share: share)
    }

    /// Adds one tick: the measurements of anchors whose model carries a shared part (`shared[k]`), at the fix, under
    /// the shared `prior` of the models in use.
    mutating func add(_ measurements: [RSSIMeasurement], shared: [Bool], x: Double, y: Double, prior: ModelUncertainty) {
        let keep = 1 - 1 / memoryTicks
        a00 *= keep; a01 *= keep; a11 *= keep; b0 *= keep; b1 *= keep
        var any = false
        for k in measurements.indices where shared[k] {
            let (r, sigma) = measurements[k].residual(x: x, y: y)
            guard r.isFinite, sigma > 0 else { continue }
            let l = -ModelUncertainty.logDistance(measurements[k].distanceMeters(x: x, y: y))
            // Huber: a residual far from what the estimate explains counts linearly.
            let e = r - (mean.level + l * mean.exponent)
            let limit = huberThreshold * sigma
            let w = abs(e) <= limit ? 1 : limit / abs(e)
            let s = w / (sigma * sigma)
            a00 += s; a01 += s * l; a11 += s * l * l
            b0 += s * r; b1 += s * r * l
            any = true
        }
        guard any else { return }
        ticks += 1
        mean = posterior(prior: prior).mean
    }

    /// The posterior of e, `N(μ, V)`, under a prior N(0, diag(σ_P², σ_n²)).
    func posterior(prior: ModelUncertainty) -> (mean: (level: Double, exponent: Double), v00: Double, v11: Double) {
        let p0 = prior.levelSigmaDB > 0 ? 1 / (prior.levelSigmaDB * prior.levelSigmaDB) : 1e12
        let p1 = prior.exponentSigma > 0 ? 1 / (prior.exponentSigma * prior.exponentSigma) : 1e12
        let h00 = p0 + share * a00, h01 = share * a01, h11 = p1 + share * a11
        let det = h00 * h11 - h01 * h01
        let v00 = h11 / det, v01 = -h01 / det, v11 = h00 / det
        let m0 = v00 * share * b0 + v01 * share * b1
        let m1 = v01 * share * b0 + v11 * share * b1
        return ((m0, m1), v00, v11)
    }

    /// The estimate under `prior`, with what the radius carries; nil before the first tick.
    func error(prior: ModelUncertainty) -> SiteModelError? {
        guard ticks > 0, !prior.isZero else { return nil }
        let p = posterior(prior: prior)
        return SiteModelError(levelDB: p.mean.level, exponent: p.mean.exponent,
                              uncertainty: ModelUncertainty(levelSigmaDB: (p.mean.level * p.mean.level + p.v00).squareRoot(),
                                                            exponentSigma: (p.mean.exponent * p.mean.exponent + p.v11).squareRoot()),
                              ticks: ticks)
    }
}
