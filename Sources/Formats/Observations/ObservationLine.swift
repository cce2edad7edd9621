import Positioning

/// One accepted line of an observation (or survey) stream: the observation, plus what else the line carried.
public struct ObservationLine: Sendable, Hashable {
    /// The measurement.
    public var observation: Observation
    /// The target's true position at `observation.t`, on survey lines.
    public var truth: TruthPoint?
    /// The optional `gateway` field (which receiver or phone logged the line).
    public var gateway: String?
    /// The optional `address` field (the sender's device address).
    public var address: String?
    /// The line's 1-based number in its file.
    public var lineNumber: Int

    /// Creates a line.
    public init(observation: Observation, truth: TruthPoint? = nil, gateway: String? = nil, address: String? = nil,
                lineNumber: Int) {
        self.observation = observation
        self.truth = truth
        self.gateway = gateway
        self.address = address
        self.lineNumber = lineNumber
    }
}
