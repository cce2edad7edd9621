/// Whether a target is on the premises: the `presence` field of the location stream (`docs/formats.md`, "Location
/// stream"), which every output that says "home" follows (Home Assistant's tracker, the API, the feed, the map).
/// Decided in one place, by the location source's `PresenceRule` (LocationBus), from where the target fell silent.
public enum Presence: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Heard, or silent for less than the timeout of the place it fell silent in.
    case home
    /// Silent for longer than that: it left.
    case notHome = "not_home"

    /// The word written in the location stream (Home Assistant's own states).
    public var description: String { rawValue }
}
