/// Why an anchor's calibration looks wrong: what the installer should go and check.
public enum AnchorFlag: String, Sendable, Hashable, Codable, CaseIterable {
    /// Too few survey samples (none at all: the beacon is off, out of range or has another id).
    case dead
    /// The RSSI fits clearly better with the anchor somewhere else: it was moved or its venue position is wrong.
    case moved
    /// Much weaker than the site model predicts, a path-loss exponent far from the site's, or a large residual:
    /// something (a wall, a cabinet, metal) stands between the anchor and the room.
    case blocked
}
