/// One packet heard while recording at a survey point: which anchor, how loud, when.
public struct SurveyReading: Sendable, Hashable {
    /// Seconds (Unix time for live scans, the recording's clock for replays).
    public var t: Double
    /// The canonical anchor id (a beacon id from `Sighting.id`).
    public var anchor: String
    /// Received signal strength, dBm.
    public var rssiDBm: Double
    /// Advertised transmit power, dBm, when the packet carried one.
    public var txPowerDBm: Double?

    /// Creates a reading.
    public init(t: Double, anchor: String, rssiDBm: Double, txPowerDBm: Double? = nil) {
        self.t = t
        self.anchor = anchor
        self.rssiDBm = rssiDBm
        self.txPowerDBm = txPowerDBm
    }
}
