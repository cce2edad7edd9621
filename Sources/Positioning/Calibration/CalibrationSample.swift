/// One surveyed packet: an anchor heard the target at a known true position (a survey JSONL line).
public struct CalibrationSample: Sendable, Hashable {
    /// The anchor's id.
    public var anchor: String
    /// Received signal strength, dBm.
    public var rssiDBm: Double
    /// The target's true position, metres.
    public var x: Double, y: Double, z: Double
    /// The surveyed target (device) and the packet's time, seconds: what groups packets into one moment of
    /// one carrier (`BodyShadowEstimator`); empty and 0 when unknown.
    public var target: String
    public var t: Double

    /// Creates a sample.
    public init(anchor: String, rssiDBm: Double, x: Double, y: Double, z: Double, target: String = "",
                t: Double = 0) {
        self.anchor = anchor
        self.rssiDBm = rssiDBm
        self.x = x
        self.y = y
        self.z = z
        self.target = target
        self.t = t
    }
}
