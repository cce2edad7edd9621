import Foundation
import Testing
@testable import Positioning

@Suite struct FilterTests {
    /// 3 dB jitter with 10% outliers 20 dB low: the outliers go, the jitter stays, the mean is unbiased.
    @Test func hampelRejectsOutliersAndKeepsJitter() {
        var rng = SeededGenerator(seed: 3)
        var filter = AnchorRSSIFilter()
        var outliersSent = 0, outliersKept = 0, jitterRejected = 0
        var sum = 0.0, n = 0
        for k in 0..<2000 {
            let t = Double(k) * 0.1
            let outlier = Double.random(in: 0..<1, using: &rng) < 0.1
            let x = -70 + 3 * rng.gaussian() + (outlier ? -20 : 0)
            let accepted = filter.add(t: t, rssiDBm: x)
            if outlier { outliersSent += 1; if accepted { outliersKept += 1 } }
            else if !accepted { jitterRejected += 1 }
            if k % 10 == 9, let tick = filter.drainTick() { sum += tick.meanDBm * Double(tick.count); n += tick.count }
        }
        // At most 5% of the outliers survive, at most 2% of clean samples are lost, the mean is within 0.3 dB.
        #expect(Double(outliersKept) <= 0.05 * Double(outliersSent))
        #expect(Double(jitterRejected) <= 0.02 * Double(2000 - outliersSent))
        #expect(abs(sum / Double(n) + 70) < 0.3)
    }

    @Test func windowIsBoundedAndCausal() {
        var filter = AnchorRSSIFilter(capacity: 8, windowSeconds: 2)
        for k in 0..<100 { filter.add(t: Double(k) * 0.05, rssiDBm: -60) }
        #expect(filter.sampleCount == 8)
        filter.add(t: 100, rssiDBm: -61)
        #expect(filter.sampleCount == 1)
        #expect(filter.windowMedian(now: 100)?.medianDBm == -61)
        #expect(filter.windowMedian(now: 103) == nil)
    }

    @Test func drainTickReturnsOnlyNewSamples() {
        var filter = AnchorRSSIFilter()
        filter.add(t: 0, rssiDBm: -60)
        filter.add(t: 0.5, rssiDBm: -62)
        let first = filter.drainTick()
        #expect(first?.count == 2 && first?.meanDBm == -61 && first?.meanTime == 0.25)
        #expect(filter.drainTick() == nil)
    }

    /// The ring grows with the samples it holds; whatever the pattern of gaps (expiry while it grows, growth after
    /// it wrapped), it keeps exactly the last `capacity` accepted samples younger than the window, as a plain list
    /// kept the same way does, and makes the same decisions.
    @Test func growingRingMatchesAPlainWindow() {
        var rng = SeededGenerator(seed: 11)
        for capacity in [1, 2, 3, 5, 16] {
            var filter = AnchorRSSIFilter(capacity: capacity, windowSeconds: 3)
            var plain: [(t: Double, x: Double)] = []
            var t = 0.0
            for _ in 0..<3000 {
                // Bursts, trickles and silences longer than the window.
                let u = Double.random(in: 0..<1, using: &rng)
                t += u < 0.6 ? 0.05 : u < 0.9 ? 1.1 : 3.5 * u
                let x = -70 + 4 * rng.gaussian() + (u < 0.05 ? -25 : 0)
                plain.removeAll { $0.t < t - 3 }
                var expected = true
                if plain.count >= 3 {
                    var w = plain.map(\.x)
                    let med = AnchorRSSIFilter.median(&w)
                    var d = plain.map { abs($0.x - med) }
                    let mad = AnchorRSSIFilter.median(&d)
                    expected = abs(x - med) <= 3 * max(1.4826 * mad, 3)
                }
                if expected {
                    plain.append((t, x))
                    if plain.count > capacity { plain.removeFirst() }
                }
                #expect(filter.add(t: t, rssiDBm: x) == expected)
                #expect(filter.sampleCount == plain.count)
                let now = t + Double.random(in: 0..<2, using: &rng)
                var kept = plain.filter { $0.t >= now - 3 }.map(\.x)
                let median = kept.isEmpty ? nil : AnchorRSSIFilter.median(&kept)
                #expect(filter.windowMedian(now: now)?.medianDBm == median)
            }
        }
    }
}
