import Positioning

/// One observation and the time its report arrived (Unix seconds on the injected clock): the start of the
/// report-to-fix latency.
public struct Arrival: Sendable, Hashable {
    /// What was heard.
    public var observation: Observation
    /// When its report arrived.
    public var arrivedAt: Double

    /// An observation whose report arrived at `arrivedAt`.
    public init(_ observation: Observation, arrivedAt: Double) {
        self.observation = observation
        self.arrivedAt = arrivedAt
    }
}

/// What an input hands over at once: arrivals in time order. A scanner hands over each report as it comes; a
/// replay's wake hands over what fell due together, all arrived at the hand-over; a site's solver hands over what
/// left its reorder buffer together, each sighting with the time its MQTT message arrived.
public typealias ObservationBatch = [Arrival]

extension Array where Element == Arrival {
    /// Observations whose reports arrived together at `arrivedAt`.
    public init(_ observations: [Observation], arrivedAt: Double) {
        self = observations.map { Arrival($0, arrivedAt: arrivedAt) }
    }
}
