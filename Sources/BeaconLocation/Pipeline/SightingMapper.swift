import Positioning
import Scanner

/// Turns scanner sightings into observations for the venue: in self mode the beacon heard is the anchor and
/// the receiver the target (`self`); in tag mode this receiver is the anchor and the beacon heard the target.
///
/// The one place a sighting becomes an observation: live scans, recordings, `bluedot replay` of a btsnoop file
/// and the gateway all map through here.
public struct SightingMapper: Sendable, Hashable {
    /// Who is located.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// The receiver locates itself from fixed beacons.
        case `self`
        /// Fixed receivers locate the beacons (tags) they hear.
        case tag
    }

    /// Self or tag mode.
    public var mode: Mode
    /// This receiver's anchor id (tag mode; `gateway` when not set).
    public var receiverID: String?
    /// The target id in self mode.
    public var selfTarget: String

    /// Creates a mapper.
    public init(mode: Mode = .self, receiverID: String? = nil, selfTarget: String = Observation.selfTarget) {
        self.mode = mode
        self.receiverID = receiverID
        self.selfTarget = selfTarget
    }

    /// The observation for `sighting`, or nil when it carries no RSSI (the controller sent 127).
    public func observation(for sighting: Sighting) -> Observation? {
        guard let rssi = sighting.rssiDBm else { return nil }
        let txPower = sighting.txPowerDBm.map(Double.init)
        switch mode {
        case .self:
            return Observation(
                t: sighting.timestamp, anchor: sighting.id, target: selfTarget, rssiDBm: Double(rssi),
                txPowerDBm: txPower)
        case .tag:
            return Observation(
                t: sighting.timestamp, anchor: receiverID ?? "gateway", target: sighting.id, rssiDBm: Double(rssi),
                txPowerDBm: txPower)
        }
    }
}
