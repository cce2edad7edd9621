import FoundationEssentials

/// Causal outlier-resistant filtering of one anchor's RSSI for one target, in bounded memory.
///
/// Keeps the last `capacity` samples younger than `windowSeconds`. A new sample is tested with the Hampel
/// identifier against the window (Hampel, "The influence curve and its role in robust estimation", JASA 69,
/// 1974; Pearson, "Outliers in process modeling and identification", IEEE TCST 10(1), 2002): it is an outlier
/// when `|x − median| > k · max(1.4826 · MAD, σ_floor)`. The floor (about the packet-to-packet jitter, 3 dB)
/// keeps a quiet window from rejecting ordinary jitter. Accepted samples feed both the window and the tick
/// accumulator that the engine drains once per fix.
///
/// Memory grows with the samples held, up to `capacity`: a filter starts empty and its ring grows by doubling,
/// so an anchor heard once every few seconds (a site of many receivers, each hearing a tag now and then) costs
/// one or two samples, not `capacity`.
public struct AnchorRSSIFilter: Sendable {
    /// Maximum samples held.
    public let capacity: Int
    /// Age beyond which samples leave the window, seconds.
    public var windowSeconds: Double
    /// Hampel threshold k, in robust sigmas.
    public var threshold: Double
    /// Lower bound on the robust sigma used by the test, dB.
    public var sigmaFloorDB: Double

    /// One accepted sample.
    private struct Sample {
        var t: Double
        var x: Double
    }

    /// The ring: the window is `count` samples from `head` on, wrapping at `samples.count`, which grows to
    /// `capacity` as samples arrive.
    private var samples: [Sample] = []
    private var head = 0
    private var count = 0
    /// Sum and count of accepted samples since the last `drainTick()`.
    private var tickSum = 0.0
    private var tickTimeSum = 0.0
    private var tickCount = 0
    /// Samples rejected as outliers since creation.
    public private(set) var rejected = 0
    /// Time of the newest accepted sample.
    public private(set) var lastTime = -Double.infinity

    /// Creates an empty filter.
    public init(capacity: Int = 16, windowSeconds: Double = 3, threshold: Double = 3, sigmaFloorDB: Double = 3) {
        self.capacity = capacity
        self.windowSeconds = windowSeconds
        self.threshold = threshold
        self.sigmaFloorDB = sigmaFloorDB
    }

    /// Adds a sample at time t; returns false when it was rejected as an outlier.
    @discardableResult
    public mutating func add(t: Double, rssiDBm x: Double) -> Bool {
        expire(before: t - windowSeconds)
        if count >= 3 {
            // The window in scratch memory on the stack: this runs for every observation.
            let outlier = withUnsafeTemporaryAllocation(of: Double.self, capacity: count) { scratch -> Bool in
                for k in 0..<count { scratch[k] = samples[(head + k) % samples.count].x }
                let med = AnchorRSSIFilter.median(scratch)
                for i in scratch.indices { scratch[i] = abs(scratch[i] - med) }
                let mad = AnchorRSSIFilter.median(scratch)
                return abs(x - med) > threshold * max(1.4826 * mad, sigmaFloorDB)
            }
            if outlier {
                rejected += 1
                return false
            }
        }
        store(Sample(t: t, x: x))
        tickSum += x
        tickTimeSum += t
        tickCount += 1
        lastTime = t
        return true
    }

    /// The mean RSSI, count and mean time of the samples accepted since the previous call, then resets; nil
    /// when none.
    public mutating func drainTick() -> (meanDBm: Double, count: Int, meanTime: Double)? {
        defer { tickSum = 0; tickTimeSum = 0; tickCount = 0 }
        guard tickCount > 0 else { return nil }
        let n = Double(tickCount)
        return (tickSum / n, tickCount, tickTimeSum / n)
    }

    /// The median of the window's samples no older than `windowSeconds` before `now`, with their count.
    public func windowMedian(now: Double) -> (medianDBm: Double, count: Int)? {
        var w: [Double] = []
        for k in 0..<count {
            let sample = samples[(head + k) % samples.count]
            if sample.t >= now - windowSeconds { w.append(sample.x) }
        }
        guard !w.isEmpty else { return nil }
        return (AnchorRSSIFilter.median(&w), w.count)
    }

    /// Number of samples in the window.
    public var sampleCount: Int { count }

    /// Puts an accepted sample after the newest: into a free slot of the ring, into a ring grown by one (while
    /// it is smaller than `capacity`), or over the oldest.
    private mutating func store(_ sample: Sample) {
        if count < samples.count {
            samples[(head + count) % samples.count] = sample
            count += 1
        } else if samples.count < capacity {
            // Full at its present size: the new sample goes between the newest (just before head) and the oldest.
            samples.insert(sample, at: head)
            if count > 0 { head += 1 }
            count += 1
        } else {
            samples[head] = sample
            head = (head + 1) % samples.count
        }
    }

    private mutating func expire(before cutoff: Double) {
        while count > 0 && samples[head].t < cutoff {
            head = (head + 1) % samples.count
            count -= 1
        }
        if count == 0 { head = 0 }
    }

    /// The median of a small array (sorted in place).
    static func median(_ a: inout [Double]) -> Double {
        a.withUnsafeMutableBufferPointer { median($0) }
    }

    /// The median of a small buffer (sorted in place).
    static func median(_ buffer: UnsafeMutableBufferPointer<Double>) -> Double {
        var a = buffer
        a.sort()
        let n = a.count
        return n % 2 == 1 ? a[n / 2] : 0.5 * (a[n / 2 - 1] + a[n / 2])
    }
}
