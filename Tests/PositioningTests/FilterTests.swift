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
}
