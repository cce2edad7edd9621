import Positioning
import Scanner

extension Observation {
    /// The observation a sighting makes in self mode: the beacon's canonical id as the anchor, its RSSI, and its
    /// advertised TX power; nil when the controller did not measure the RSSI.
    public init?(sighting: Sighting, target: String = Observation.selfTarget) {
        guard let rssi = sighting.rssiDBm else { return nil }
        self.init(t: sighting.timestamp, anchor: sighting.id, target: target, rssiDBm: Double(rssi),
                  txPowerDBm: sighting.txPowerDBm.map(Double.init))
    }
}
