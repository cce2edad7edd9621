/// One simulated reception: the observation as a receiver would log it, and where the target truly was.
public struct SimulatedPacket: Sendable, Hashable {
    /// The observation (time, anchor, target, RSSI).
    public var observation: Observation
    /// The target's true position at the packet's time.
    public var truth: TruthPoint
    /// The noise-free RSSI the model expects at the true distance, dBm.
    public var expectedRSSIDBm: Double

    /// Creates a packet.
    public init(observation: Observation, truth: TruthPoint, expectedRSSIDBm: Double) {
        self.observation = observation
        self.truth = truth
        self.expectedRSSIDBm = expectedRSSIDBm
    }
}
