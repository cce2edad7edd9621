/// One surveyed packet: an anchor heard the target at a known true position (a survey JSONL line).
public struct CalibrationSample: Sendable, Hashable {
    /// The anchor's id.
    public var anchor: String
    /// Received signal strength, dBm.
    public var rssiDBm: Double
    /// The target's true position, metres.
    public var x: Double, y: Double, z: Double

    /// Creates a sample.
    public init(anchor: String, rssiDBm: Double, x: Double, y: Double, z: Double) {
        self.anchor = anchor
        self.rssiDBm = rssiDBm
        self.x = x
        self.y = y
        self.z = z
    }
}
