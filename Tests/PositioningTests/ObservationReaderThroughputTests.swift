import Foundation
import Testing
@testable import Positioning

@Suite struct ObservationReaderThroughputTests {
    /// Replays need >= 200,000 observations/s on one core (optimised build). Debug builds are ~10x slower, so the
    /// debug bound only catches gross regressions; run `swift test -c release -Xswiftc -enable-testing` for the
    /// real figure.
    @Test func readsFastEnough() throws {
        var text = ""
        let anchors = ["b827eb4521b4", "000000000101", "000000000202", "a1", "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7"]
        for k in 0..<200_000 {
            let t = JSONText.fixed(1581249601.409 + Double(k) * 0.013, decimals: 3)
            text += #"{"t": \#(t), "anchor": "\#(anchors[k % 5])", "target": "e78f135624ce", "rssi": -\#(50 + k % 40)"#
            text += k % 3 == 0 ? ".5}\n" : #", "truth": {"x": 18.031, "y": 8.465, "z": 1.816}}"# + "\n"
        }
        let bytes = Array(text.utf8)
        var reader = ObservationReader(source: MemoryChunkSource(bytes), name: "bench")
        let clock = ContinuousClock()
        var count = 0
        var rssiSum = 0.0
        let elapsed = try clock.measure {
            while let line = try reader.next() {
                count += 1
                rssiSum += line.observation.rssiDBm
            }
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let rate = Double(count) / seconds
        print("observation reader: \(count) lines, \(bytes.count) bytes in \(seconds) s = \(Int(rate)) lines/s")
        #expect(count == 200_000 && reader.report.isClean && rssiSum < 0)
        #if DEBUG
        #expect(rate > 20_000)
        #else
        #expect(rate > 200_000)
        #endif
    }
}
