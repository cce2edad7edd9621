/// What made a fix, when more than one kind of source can: the `source` field of the location stream
/// (`docs/formats.md`, "Location stream").
public enum PositionSource: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The beacon engine: Bluetooth anchors heard in the venue.
    case beacons
    /// A GNSS receiver, through gpsd.
    case gnss

    /// The word written in the location stream.
    public var description: String { rawValue }
}
