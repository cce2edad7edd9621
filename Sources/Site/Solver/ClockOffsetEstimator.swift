/// Learns how far a receiver's clock is from the solver's, from when its batches arrive.
///
/// Each batch carries the receiver's clock when sent (`SightingBatch.clock`); the solver notes its own clock on
/// arrival. `arrival - sent` is the offset plus the trip through the broker, which is never negative, so the
/// smallest difference over a recent window is the best estimate of the offset (the minimum filter of network
/// time protocols): a slow trip only ever makes a sample larger. The window (default 30 s) lets the estimate
/// follow a receiver whose clock is stepped or drifts; the spread of the window's samples above the minimum is
/// the trip's jitter.
public struct ClockOffsetEstimator: Sendable, Hashable {
    /// How long samples count, seconds of solver time.
    public let windowSeconds: Double
    /// (arrival, arrival - sent), oldest first, with the minimum kept at the front of a monotonic queue.
    private var samples: [(arrival: Double, difference: Double)] = []
    private var head = 0
    private var recent: [Double] = []

    /// An estimator with no samples.
    public init(windowSeconds: Double = 30) {
        self.windowSeconds = max(1, windowSeconds)
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.windowSeconds == b.windowSeconds && a.offset == b.offset
    }

    public func hash(into h: inout Hasher) {
        h.combine(windowSeconds)
        h.combine(offset)
    }

    /// Adds a batch sent at `sent` (receiver clock) that arrived at `arrival` (solver clock).
    public mutating func add(sent: Double, arrival: Double) {
        guard sent.isFinite, arrival.isFinite else { return }
        let difference = arrival - sent
        // Monotonic queue: drop every kept sample that is no smaller than the new one; they can never be the
        // window's minimum again.
        while samples.count > head, samples[samples.count - 1].difference >= difference { samples.removeLast() }
        samples.append((arrival, difference))
        while head < samples.count - 1, samples[head].arrival < arrival - windowSeconds { head += 1 }
        if head > 256, head * 2 > samples.count {
            samples.removeSubrange(0..<head)
            head = 0
        }
        recent.append(difference)
        if recent.count > 64 { recent.removeFirst(recent.count - 64) }
    }

    /// Seconds to add to the receiver's clock to read the solver's; nil before the first batch.
    public var offset: Double? {
        head < samples.count ? samples[head].difference : nil
    }

    /// The median of the recent trips above the minimum, seconds (how much later than the best case batches
    /// arrive); nil before the first batch.
    public var jitter: Double? {
        guard let offset, !recent.isEmpty else { return nil }
        let sorted = recent.sorted()
        return sorted[sorted.count / 2] - offset
    }
}
