import BlueDotCore
import Foundation
@testable import Gateway
import Positioning
import Testing

/// The feed's numbers and frames as bytes: the same numbers as the plain definitions, and the same text where that
/// was plain decimals.
@Suite struct FeedEventTextTests {
    /// The feed's number as first defined: rounded to `decimals`, whole numbers without a point, otherwise
    /// Swift's shortest form of the rounded value.
    static func referenceNumber(_ x: Double, decimals: Int) -> String {
        guard x.isFinite else { return "null" }
        let scale = pow(10.0, Double(decimals))
        let rounded = (x * scale).rounded() / scale
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        return "\(rounded)"
    }

    @Test func numbersMatchTheirDefinitionOnSeededValues() {
        var rng = SplitMix64(seed: 5)
        for k in 0..<50_000 {
            let decimals = [1, 2, 3, 6][k % 4]
            let magnitude = pow(10.0, Double(rng.next() % 12) - 3)
            let x = (Double(rng.next() % 2_000_001) / 1_000_000 - 1) * magnitude
            let text = FeedEvent.number(x, decimals: decimals), reference = Self.referenceNumber(x, decimals: decimals)
            // The same number; written in plain decimals where Swift's shortest form takes an exponent (`3.5e-05`).
            #expect(Double(text) == Double(reference) && !text.contains("e"), "\(x) with \(decimals) decimals")
            if !reference.contains("e") { #expect(text == reference, "\(x) with \(decimals) decimals") }
        }
        for x in [0.0, -0.0, -0.04, 0.05, 359.96, 1_732_400_000.123456, .nan, .infinity] {
            #expect(FeedEvent.number(x, decimals: 1) == Self.referenceNumber(x, decimals: 1), "\(x)")
        }
    }

    @Test func frameBytesAreTheFrame() {
        let fix = Location(timestamp: 12.5, targetID: "tag \"7\"", x: 1, y: 2, horizontalAccuracyMeters: 1.5,
            anchorCount: 4, room: "Kitchen", roomProbability: 0.92, reportedAt: 1_732_400_000.25)
        let drawing = DotDrawing(symbol: "courseArrow", accuracyMeters: 1.504, rotationDegrees: 90.04, ping: true,
                                 pingSequence: 3)
        let message = FeedMessage(id: 42, event: .fix(fix, drawing))
        #expect(message.frame == """
            id: 42
            event: fix
            data: {"fix":{"t": 12.500, "target": "tag \\"7\\"", "x": 1.000, "y": 2.000, "horizontalAccuracy": 1.500, \
            "lastKnown": false, "anchors": 4, "room": "Kitchen", "roomProbability": 0.920},"display":{"symbol":\
            "courseArrow","accuracy":1.5,"rotation":90,"navigationRotation":0,"ping":true,"pingSequence":3},\
            "reportedAt":1732400000.25}


            """)
        #expect(message.frameBytes == Array(message.frame.utf8))
        #expect(FeedEvent.leave(target: "a", room: "b", t: 3).json == #"{"target":"a","room":"b","t":3}"#)
    }
}
