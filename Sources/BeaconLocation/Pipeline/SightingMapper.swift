import Devices
import Positioning
import Scanner

/// Turns scanner sightings into observations for the venue: in self mode the beacon heard is the anchor and
/// the receiver the target (`self`); in tag mode this receiver is the anchor and the beacon heard the target.
///
/// The one place a sighting becomes an observation: live scans, recordings, `bluedot replay` of a btsnoop file
/// and the gateway all map through here. Who a sighting is comes from `devices` (`DeviceIdentifier`): a registry
/// device's id (its private addresses resolved), a known beacon's id, or a stranger. In tag mode a stranger
/// makes no observation (it is only counted there); in self mode an advertiser no device claims keeps its own id as
/// the anchor (the engine counts and skips anchors the venue does not have).
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
    /// Who each advertiser is: registry devices, known beacons, strangers.
    public var devices: DeviceIdentifier

    /// Creates a mapper; without `devices`, only beacons are known (no registry).
    public init(
        mode: Mode = .self, receiverID: String? = nil, selfTarget: String = Observation.selfTarget,
        devices: DeviceIdentifier = .beaconsOnly()
    ) {
        self.mode = mode
        self.receiverID = receiverID
        self.selfTarget = selfTarget
        self.devices = devices
    }

    /// The observation for `sighting`, or nil when it carries no RSSI (the controller sent 127) or, in tag mode,
    /// is a stranger's.
    public func observation(for sighting: Sighting) -> Observation? {
        guard let rssi = sighting.rssiDBm else { return nil }
        let txPower = sighting.txPowerDBm.map(Double.init)
        let beaconID = sighting.beacon?.hasCanonicalID == true ? sighting.id : nil
        let identity = devices.identify(
            address: sighting.address, type: sighting.addressType, beaconID: beaconID, at: sighting.timestamp)
        switch mode {
        case .self:
            return Observation(
                t: sighting.timestamp, anchor: identity.targetID ?? sighting.id, target: selfTarget,
                rssiDBm: Double(rssi), txPowerDBm: txPower)
        case .tag:
            guard let target = identity.targetID else { return nil }
            return Observation(
                t: sighting.timestamp, anchor: receiverID ?? "gateway", target: target, rssiDBm: Double(rssi),
                txPowerDBm: txPower)
        }
    }

    /// Equal when mode, ids and the identifier (the same instance) are.
    public static func == (a: SightingMapper, b: SightingMapper) -> Bool {
        a.mode == b.mode && a.receiverID == b.receiverID && a.selfTarget == b.selfTarget && a.devices === b.devices
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(mode)
        hasher.combine(receiverID)
        hasher.combine(selfTarget)
        hasher.combine(ObjectIdentifier(devices))
    }
}
