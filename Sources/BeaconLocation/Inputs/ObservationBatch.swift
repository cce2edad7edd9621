import Positioning

/// What an input hands over at once: observations in time order, each with the time its report arrived (Unix
/// seconds on the injected clock, the start of the report-to-fix latency).
///
/// A replay's wake hands over what fell due together, all arrived at the hand-over; a site's solver hands over
/// what left its reorder buffer together, each sighting with the time its MQTT message arrived.
public struct ObservationBatch: Sendable {
    /// The observations, in time order.
    public private(set) var observations: [Observation] = []
    /// When each observation's report arrived, by index.
    public private(set) var arrivals: [Double] = []

    /// An empty batch.
    public init() {}

    /// Observations whose reports arrived together at `arrivedAt`.
    public init(_ observations: [Observation], arrivedAt: Double) {
        self.observations = observations
        arrivals = Array(repeating: arrivedAt, count: observations.count)
    }

    /// Adds an observation whose report arrived at `arrivedAt`.
    public mutating func append(_ observation: Observation, arrivedAt: Double) {
        observations.append(observation)
        arrivals.append(arrivedAt)
    }

    /// How many observations.
    public var count: Int { observations.count }

    /// True with no observations.
    public var isEmpty: Bool { observations.isEmpty }
}
