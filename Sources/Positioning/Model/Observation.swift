/// One radio measurement: an anchor heard a target (or the target heard an anchor) at some signal strength.
///
/// The observation stream format of `docs/formats.md`. In self mode the target is `self` and the anchor is a
/// beacon id; in tag mode the anchor is a receiver and the target a tag.
public struct Observation: Sendable, Hashable {
    /// The target id used when an observation names none: the gateway locating itself.
    public static let selfTarget = "self"

    /// Time in seconds on the stream's fixed origin (Unix time by default).
    public var t: Double
    /// The anchor's id, as in the venue file.
    public var anchor: String
    /// The target's id (`self` in self mode).
    public var target: String
    /// Received signal strength in dBm.
    public var rssiDBm: Double
    /// The transmit power the sender advertised, in dBm, when known.
    public var txPowerDBm: Double?

    /// Creates an observation.
    public init(t: Double, anchor: String, target: String = Observation.selfTarget, rssiDBm: Double,
                txPowerDBm: Double? = nil) {
        self.t = t
        self.anchor = anchor
        self.target = target
        self.rssiDBm = rssiDBm
        self.txPowerDBm = txPowerDBm
    }
}
