/// Why a `BeaconLocationSource`'s run failed (its data source adapter: why it could not start or stopped).
public enum BeaconLocationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The venue has no anchors, so nothing can be located.
    case venueHasNoAnchors(venue: String)
    /// The recording's transport could not be opened.
    case recordingUnavailable(transport: String, reason: String)
    /// The recording's packet stream failed part way (a damaged file); the packets before were used.
    case recordingFailed(transport: String, reason: String)

    /// A sentence naming the venue or transport.
    public var description: String {
        switch self {
        case let .venueHasNoAnchors(venue): "venue \"\(venue)\" has no anchors to locate against"
        case let .recordingUnavailable(transport, reason): "cannot open recording \(transport): \(reason)"
        case let .recordingFailed(transport, reason): "recording \(transport) failed: \(reason)"
        }
    }
}
