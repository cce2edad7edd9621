import Positioning
import Scanner

/// Turns scanner sightings into observations for the venue: in self mode the beacon heard is the anchor and
/// the gateway the target; in tag mode this gateway's receiver is the anchor and the beacon heard the target.
public struct SightingMapper: Sendable, Hashable {
    /// Self or tag mode.
    public var mode: GatewayConfiguration.Mode
    /// This receiver's anchor id (tag mode).
    public var gatewayID: String?

    /// Creates a mapper.
    public init(mode: GatewayConfiguration.Mode, gatewayID: String?) {
        self.mode = mode
        self.gatewayID = gatewayID
    }

    /// The observation for `sighting`, or nil when it carries no RSSI (the controller sent 127).
    public func observation(for sighting: Sighting) -> Observation? {
        guard let rssi = sighting.rssiDBm else { return nil }
        let txPower = sighting.txPowerDBm.map(Double.init)
        switch mode {
        case .self:
            return Observation(t: sighting.timestamp, anchor: sighting.id, rssiDBm: Double(rssi), txPowerDBm: txPower)
        case .tag:
            return Observation(
                t: sighting.timestamp, anchor: gatewayID ?? "gateway", target: sighting.id, rssiDBm: Double(rssi),
                txPowerDBm: txPower)
        }
    }
}
