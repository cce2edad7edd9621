/// A perceptually ordered colour scale from dark blue (good: small predicted error) to yellow (poor), sampled
/// from five stops of the viridis map (van der Walt and Smith, matplotlib, 2015) and interpolated linearly.
public struct ColorScale: Sendable, Hashable {
    /// Value at the first stop, metres.
    public var minimum: Double
    /// Value at the last stop; larger values take the last colour.
    public var maximum: Double

    /// An RGB colour, components in 0...1.
    public struct RGB: Sendable, Hashable {
        /// Components.
        public var r: Double, g: Double, b: Double
    }

    /// Viridis at 0, 0.25, 0.5, 0.75 and 1.
    static let stops: [RGB] = [
        RGB(r: 0.267, g: 0.005, b: 0.329), RGB(r: 0.229, g: 0.322, b: 0.545), RGB(r: 0.128, g: 0.567, b: 0.551),
        RGB(r: 0.369, g: 0.789, b: 0.383), RGB(r: 0.993, g: 0.906, b: 0.144),
    ]

    /// Creates a scale over [minimum, maximum].
    public init(minimum: Double, maximum: Double) {
        self.minimum = minimum
        self.maximum = max(maximum, minimum + 1e-9)
    }

    /// The colour of a value (clamped to the range).
    public func color(_ value: Double) -> RGB {
        let u = min(max((value - minimum) / (maximum - minimum), 0), 1) * Double(Self.stops.count - 1)
        let i = min(Int(u), Self.stops.count - 2)
        let f = u - Double(i)
        let a = Self.stops[i], b = Self.stops[i + 1]
        return RGB(r: a.r + f * (b.r - a.r), g: a.g + f * (b.g - a.g), b: a.b + f * (b.b - a.b))
    }

    /// A round upper end for a map: the 95th percentile of the finite values, rounded up to 0.5 m (at least 1 m).
    public static func upperEnd(of values: [Double]) -> Double {
        let finite = values.filter(\.isFinite).sorted()
        guard !finite.isEmpty else { return 1 }
        let p95 = finite[min(Int(0.95 * Double(finite.count)), finite.count - 1)]
        return max((p95 * 2).rounded(.up) / 2, 1)
    }
}
