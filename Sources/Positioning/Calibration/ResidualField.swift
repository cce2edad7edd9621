import FoundationEssentials

/// A site model of each anchor's place-dependent bias: a smooth map of what the log-distance model gets wrong.
///
/// Walls, furniture and antenna patterns make an anchor's RSSI depart from `P₀ − 10 n log10(d)` by several dB
/// in a way that depends on where the target is, not on time. Survey samples carry their true position, so
/// their residuals `rᵢ = rssiᵢ − h(pᵢ)` against the calibrated model sample that bias. Per anchor, the
/// residuals are averaged into bins of `binMeters` and a Gaussian process is fitted on the bin means
/// (Rasmussen and Williams, *Gaussian Processes for Machine Learning*, 2006, §2.2, Algorithm 2.1): prior mean 0,
/// squared-exponential covariance `τ² exp(−‖p − q‖² / (2ℓ²))`, and per bin the noise variance
/// `j²/n + σ_c²` (packet jitter averaged over the bin's n packets, plus a part that does not average: body
/// shadowing, orientation). The posterior mean `b̂(p)` and variance `v(p)` are tabulated on a grid over the
/// venue and read back bilinearly; far from the survey the mean shrinks to 0 and the variance grows to τ².
/// The measurement function becomes `h(p) + b̂(p)` with variance `σ² + v(p)` (`RSSIMeasurement.field`; σ the
/// model's calibrated sigma), i.e. a radio-map correction on top of the physical model. The defaults (ℓ = 4 m,
/// τ = 2 dB, σ_c = 4 dB: strong shrinkage) are the ones that held up leave-one-track-out (`docs/positioning.md`).
public struct ResidualField: Sendable, Hashable {
    /// The field's hyperparameters.
    public struct Parameters: Sendable, Hashable {
        /// Correlation length ℓ of the bias, metres.
        public var lengthScaleMeters: Double = 4
        /// Prior standard deviation τ of the bias, dB.
        public var priorSigmaDB: Double = 2
        /// Side of the bins the residuals are averaged in, metres.
        public var binMeters: Double = 1
        /// Per-packet jitter, dB: the part of a bin's noise that averaging its packets divides.
        public var jitterSigmaDB: Double = 3
        /// Noise of a bin mean that averaging does not remove, dB.
        public var binSigmaDB: Double = 4
        /// Spacing of the tabulated grid, metres.
        public var gridMeters: Double = 0.5
        /// Distances below this are clamped (the model's reference distance, as in the calibration), metres.
        public var nearFieldMeters: Double = 1

        /// Creates the documented defaults.
        public init() {}
    }

    /// One anchor's tabulated posterior: bias and its variance at grid nodes, bilinear in between.
    public struct Layer: Sendable, Hashable {
        /// Position of node (0, 0), metres.
        public var originX: Double, originY: Double
        /// Node spacing, metres.
        public var step: Double
        /// Nodes per axis.
        public var nx: Int, ny: Int
        /// Posterior mean bias (x) and its variance (y, dB²) per node, row-major with y outer: one array, so a
        /// measurement carrying a layer holds a single reference.
        public var nodes: [SIMD2<Double>]
        /// Posterior mean bias per node, dB.
        public var bias: [Double] { nodes.map(\.x) }
        /// Posterior variance of the bias per node, dB².
        public var variance: [Double] { nodes.map(\.y) }
        /// Robust residual sigma of the survey around model plus field, dB (a diagnostic: in-sample it is
        /// optimistic, so the engine keeps the model's own sigma and adds the field's variance).
        public var sigmaDB: Double

        /// Creates a layer from per-node bias and variance (row-major, y outer; nx · ny of each).
        public init(originX: Double, originY: Double, step: Double, nx: Int, ny: Int, bias: [Double],
                    variance: [Double], sigmaDB: Double) {
            self.originX = originX
            self.originY = originY
            self.step = step
            self.nx = nx
            self.ny = ny
            nodes = zip(bias, variance).map { SIMD2($0, $1) }
            self.sigmaDB = sigmaDB
        }

        /// The bias b̂, its variance v and the gradient of b̂ at a position (held constant outside the grid).
        public func evaluate(x: Double, y: Double) -> (biasDB: Double, variance: Double, gx: Double, gy: Double) {
            let u = min(max((x - originX) / step, 0), Double(nx - 1))
            let w = min(max((y - originY) / step, 0), Double(ny - 1))
            let i = min(Int(u), max(nx - 2, 0)), j = min(Int(w), max(ny - 2, 0))
            let fu = u - Double(i), fw = w - Double(j)
            let i1 = min(i + 1, nx - 1), j1 = min(j + 1, ny - 1)
            let k00 = j * nx + i, k10 = j * nx + i1, k01 = j1 * nx + i, k11 = j1 * nx + i1
            let n00 = nodes[k00], n10 = nodes[k10], n01 = nodes[k01], n11 = nodes[k11]
            let m = (1 - fw) * ((1 - fu) * n00 + fu * n10) + fw * ((1 - fu) * n01 + fu * n11)
            let gx = ((1 - fw) * (n10.x - n00.x) + fw * (n11.x - n01.x)) / step
            let gy = ((1 - fu) * (n01.x - n00.x) + fu * (n11.x - n10.x)) / step
            return (m.x, m.y, gx, gy)
        }
    }

    /// The layers by anchor id (anchors without survey samples have none).
    public var layers: [String: Layer]
    /// The hyperparameters the field was fitted with.
    public var parameters: Parameters

    /// Creates a field from its layers.
    public init(layers: [String: Layer], parameters: Parameters) {
        self.layers = layers
        self.parameters = parameters
    }

    /// Fits one layer per anchor on the survey's residuals against the (calibrated) venue's models.
    ///
    /// The field is 2-D (x, y); each residual uses its sample's own height. Anchors without samples get no layer.
    public static func fit(_ samples: [CalibrationSample], venue: Venue,
                           parameters: Parameters = Parameters()) -> ResidualField {
        var byAnchor: [String: [CalibrationSample]] = [:]
        for s in samples { byAnchor[s.anchor, default: []].append(s) }
        let area = venue.bounds ?? Trilaterator.anchorArea(venue.anchors)
        var layers: [String: Layer] = [:]
        // A fitted wall loss is part of the model the field corrects: its residuals are taken with the walls.
        let walls = WallAttenuation(venue: venue, lossDB: venue.wallLossDB ?? 0)
        for a in venue.anchors {
            guard let rows = byAnchor[a.id], !rows.isEmpty else { continue }
            let model = a.model(default: venue.model)
            let residuals = rows.map { s -> Double in
                let d = ((s.x - a.x) * (s.x - a.x) + (s.y - a.y) * (s.y - a.y) + (s.z - a.z) * (s.z - a.z))
                    .squareRoot()
                return s.rssiDBm - model.rssiDBm(atDistanceMeters: max(d, parameters.nearFieldMeters))
                    + (walls?.lossDB(fromX: a.x, fromY: a.y, toX: s.x, toY: s.y, floor: a.floor) ?? 0)
            }
            let regression = ResidualRegression(rows: rows, residuals: residuals, parameters: parameters)
            layers[a.id] = regression.layer(over: area)
        }
        return ResidualField(layers: layers, parameters: parameters)
    }
}
