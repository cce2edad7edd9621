import BlueDotCore

/// How long to wait before each reconnect attempt: exponential growth from `initial` by `multiplier`, capped at
/// `maximum`, with optional seeded jitter.
///
/// Attempt 0 waits `initial`, attempt k waits `min(initial * multiplier^k, maximum)`, then the jitter scales it by
/// a factor drawn uniformly from `1 - jitter ... 1 + jitter`. The generator is seeded, so delays repeat run to run.
public struct ReconnectBackoff: Sendable, Hashable {
    /// The delay before the first attempt.
    public var initial: Duration
    /// The factor from one attempt's delay to the next.
    public var multiplier: Double
    /// The longest delay, before jitter.
    public var maximum: Duration
    /// The jitter as a fraction of the delay (0 for none; at most 1).
    public var jitter: Double
    /// The seed of the jitter's generator.
    public var seed: UInt64

    /// Creates a policy; the default starts at 250 ms, doubles, and stops growing at 8 s, without jitter.
    public init(
        initial: Duration = .milliseconds(250), multiplier: Double = 2, maximum: Duration = .seconds(8),
        jitter: Double = 0, seed: UInt64 = 0
    ) {
        self.initial = initial
        self.multiplier = multiplier
        self.maximum = maximum
        self.jitter = min(max(jitter, 0), 1)
        self.seed = seed
    }

    /// The delay before reconnect attempt `attempt` (counted from 0), drawing jitter from `generator`.
    public func delay(attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let base = Self.seconds(initial) * Self.power(multiplier, max(attempt, 0))
        let capped = min(base, Self.seconds(maximum))
        let factor = jitter > 0 ? Double.random(in: (1 - jitter)...(1 + jitter), using: &generator) : 1
        return .nanoseconds(Int64((capped * factor * 1e9).rounded()))
    }

    /// A generator for this policy's jitter, seeded with `seed`.
    public func makeGenerator() -> SplitMix64 { SplitMix64(seed: seed) }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// `x^n` by repeated multiplication, stopping early once the value is past any sensible cap.
    static func power(_ x: Double, _ n: Int) -> Double {
        var result = 1.0
        for _ in 0..<n where result < 1e9 { result *= x }
        return result
    }
}
