import FoundationEssentials
import Glibc

/// One anchor's RSSI as a measurement of the target's horizontal position, through the log-distance model.
///
/// `h(p) = P₀ − 10 n log10(‖(p − a, Δz)‖)`: the measurement function of both the trilaterator and the
/// Kalman filter's direct RSSI update (residuals in dB, so the model's shadowing sigma is the noise).
public struct RSSIMeasurement: Sendable, Hashable {
    /// Anchor position, metres.
    public var anchorX: Double, anchorY: Double
    /// Height of the anchor above the target, metres (signed; only its square matters).
    public var heightDifferenceMeters: Double
    /// The anchor's path-loss model.
    public var model: PathLossModel
    /// Measured (filtered) RSSI, dBm.
    public var rssiDBm: Double
    /// Standard deviation of this measurement around the model, dB.
    public var sigmaDB: Double
    /// Distances closer than this are treated as this: near an anchor the log-distance law no longer holds
    /// (antenna pattern, near field), and the model is flat inside.
    public var nearFieldMeters: Double = RSSIMeasurement.minimumDistanceMeters
    /// The anchor's place-dependent bias (`ResidualField`), nil for the plain model: the measurement function
    /// becomes `h(p) + b̂(p)` and its variance `σ² + v(p)`, `v` the field's own uncertainty at p.
    public var field: ResidualField.Layer?
    /// The walls between anchor and target with their loss (`EngineConfiguration.wallLossDB`), nil for a model
    /// without walls: the measurement function becomes `h(p) − L · walls(anchor, p)`, on the floor `floor`.
    public var walls: WallAttenuation?
    /// The floor the walls are counted on (the target's).
    public var floor: Int = 0

    /// Creates a measurement.
    public init(anchorX: Double, anchorY: Double, heightDifferenceMeters: Double = 0, model: PathLossModel,
                rssiDBm: Double, sigmaDB: Double) {
        self.anchorX = anchorX
        self.anchorY = anchorY
        self.heightDifferenceMeters = heightDifferenceMeters
        self.model = model
        self.rssiDBm = rssiDBm
        self.sigmaDB = sigmaDB
    }

    /// The default near-field distance, metres.
    public static let minimumDistanceMeters = 0.3

    /// The 3-D distance from a horizontal position to the anchor, metres (at least the minimum).
    public func distanceMeters(x: Double, y: Double) -> Double {
        let dx = x - anchorX, dy = y - anchorY, dz = heightDifferenceMeters
        return max((dx * dx + dy * dy + dz * dz).squareRoot(), nearFieldMeters)
    }

    /// The model's RSSI at a position, h(p), dBm.
    public func predictedRSSIDBm(x: Double, y: Double) -> Double {
        let h = withUnsafePointer(to: self) { Self.pathLossRSSIDBm($0, x: x, y: y) }
        guard let field else { return h }
        return h + field.evaluate(x: x, y: y).biasDB
    }

    /// The residual `z − h(p)` (field included) and the measurement's sigma at p (`sigmaDB`, widened by the
    /// field's variance there), dB.
    public func residual(x: Double, y: Double) -> (residualDB: Double, sigmaDB: Double) {
        withUnsafePointer(to: self) { Self.residual($0, x: x, y: y) }
    }

    /// The normalized residual `(z − h(p)) / σ` and the gradient of h(p)/σ with respect to (x, y).
    ///
    /// `∂h/∂x = −10 n (x − aₓ) / (ln 10 · d²)`, and the same in y.
    public func linearize(x: Double, y: Double) -> (residual: Double, gx: Double, gy: Double) {
        withUnsafePointer(to: self) { Self.linearize($0, x: x, y: y) }
    }

    /// `residual(x:y:)` of a measurement read where it lies. The solvers call these in their inner loops: a
    /// method called on an element of an array or buffer gets a copy of the whole measurement (its field and
    /// walls retained and released) for every call, a pointer reads only the numbers it needs.
    static func residual(_ m: UnsafePointer<RSSIMeasurement>, x: Double, y: Double)
        -> (residualDB: Double, sigmaDB: Double)
    {
        let h = pathLossRSSIDBm(m, x: x, y: y)
        guard m.pointee.field != nil else { return (m.pointee.rssiDBm - h, m.pointee.sigmaDB) }
        let f = m.pointee.field!.evaluate(x: x, y: y)
        let sigma = m.pointee.sigmaDB
        return (m.pointee.rssiDBm - h - f.biasDB, (sigma * sigma + f.variance).squareRoot())
    }

    /// The path-loss model's RSSI at a position, less the walls' loss on the way (h(p) without the field), dBm.
    @inline(__always)
    static func pathLossRSSIDBm(_ m: UnsafePointer<RSSIMeasurement>, x: Double, y: Double) -> Double {
        let dx = x - m.pointee.anchorX, dy = y - m.pointee.anchorY, dz = m.pointee.heightDifferenceMeters
        let d = max((dx * dx + dy * dy + dz * dz).squareRoot(), m.pointee.nearFieldMeters)
        var h = m.pointee.model.rssiDBm(atDistanceMeters: d)
        subtractWallLoss(m, x: x, y: y, from: &h)
        return h
    }

    /// Takes the walls' loss between the anchor and a position off `h` (nothing without walls).
    @inline(__always)
    static func subtractWallLoss(_ m: UnsafePointer<RSSIMeasurement>, x: Double, y: Double, from h: inout Double) {
        guard let walls = m.pointee.walls else { return }
        h -= walls.lossDB(fromX: m.pointee.anchorX, fromY: m.pointee.anchorY, toX: x, toY: y, floor: m.pointee.floor)
    }

    /// `linearize(x:y:)` of a measurement read where it lies (see `residual(_:x:y:)`).
    static func linearize(_ m: UnsafePointer<RSSIMeasurement>, x: Double, y: Double)
        -> (residual: Double, gx: Double, gy: Double)
    {
        let dx = x - m.pointee.anchorX, dy = y - m.pointee.anchorY, dz = m.pointee.heightDifferenceMeters
        let d2raw = dx * dx + dy * dy + dz * dz
        let dmin = m.pointee.nearFieldMeters
        let d2 = max(d2raw, dmin * dmin)
        let n = m.pointee.model.pathLossExponent
        var h = m.pointee.model.measuredPowerDBm - 5 * n * PathLossModel.log10(d2)
        subtractWallLoss(m, x: x, y: y, from: &h)
        guard m.pointee.field != nil else {
            let sigma = m.pointee.sigmaDB
            let r = (m.pointee.rssiDBm - h) / sigma
            // Inside the near-field clamp the model is flat: no gradient.
            let c = d2raw < dmin * dmin ? 0 : -10 * n / (M_LN10 * d2 * sigma)
            return (r, c * dx, c * dy)
        }
        // With the site's bias field: h + b̂, sigma widened by v(p) (its own gradient neglected).
        let f = m.pointee.field!.evaluate(x: x, y: y)
        let s = (m.pointee.sigmaDB * m.pointee.sigmaDB + f.variance).squareRoot()
        let c = d2raw < dmin * dmin ? 0 : -10 * n / (M_LN10 * d2)
        return ((m.pointee.rssiDBm - h - f.biasDB) / s, (c * dx + f.gx) / s, (c * dy + f.gy) / s)
    }
}

/// Walls in the measurement model: a venue's `WallMap` with a loss per wall crossed. A class, so that every
/// measurement of a tick shares one map; measurements compare equal when they share it.
public final class WallAttenuation: Sendable, Hashable {
    /// The walls.
    public let map: WallMap
    /// Loss per wall, dB.
    public let lossDB: Double

    /// Walls of `map` at `lossDB` each.
    public init(map: WallMap, lossDB: Double) {
        self.map = map
        self.lossDB = lossDB
    }

    /// The venue's walls at `lossDB` each (`map`, when already drawn); nil when the loss is not above 0 or the
    /// venue has no rooms to draw walls from.
    public convenience init?(venue: Venue, lossDB: Double, map: WallMap? = nil) {
        guard lossDB > 0, let walls = map ?? WallMap(venue: venue) else { return nil }
        self.init(map: walls, lossDB: lossDB)
    }

    /// The loss of the walls the straight line between two points crosses away from openings, dB.
    public func lossDB(fromX x0: Double, fromY y0: Double, toX x1: Double, toY y1: Double, floor: Int) -> Double {
        lossDB * Double(map.wallsCrossed(fromX: x0, fromY: y0, toX: x1, toY: y1, floor: floor))
    }

    public static func == (a: WallAttenuation, b: WallAttenuation) -> Bool { a === b }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
