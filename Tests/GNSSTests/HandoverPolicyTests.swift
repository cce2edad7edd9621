import BlueDotCore
import GNSS
import Testing

/// The hand-over rule between beacon fixes and GNSS fixes: first choice, margin, dwell, usability.
@Suite("Hand-over policy")
struct HandoverPolicyTests {
    static func input(_ accuracy: Double, at t: Double, anchors: Int = 0, lastKnown: Bool = false) -> HandoverPolicy.Input {
        HandoverPolicy.Input(Location(timestamp: t, x: 0, y: 0, horizontalAccuracyMeters: accuracy, lastKnown: lastKnown,
                                      anchorCount: anchors), arrivedAt: t)
    }

    @Test func firstChoiceIsTheBetterUsableSource() {
        var policy = HandoverPolicy()
        #expect(policy.choose(beacons: nil, gnss: nil, now: 0) == nil)
        #expect(policy.choose(beacons: Self.input(1.5, at: 0, anchors: 2), gnss: nil, now: 0) == nil)  // 2 anchors
        #expect(policy.choose(beacons: Self.input(1.5, at: 0, anchors: 4), gnss: Self.input(3, at: 0), now: 0) == .beacons)
        var outdoors = HandoverPolicy()
        #expect(outdoors.choose(beacons: Self.input(6, at: 0, anchors: 3), gnss: Self.input(3, at: 0), now: 0) == .gnss)
        #expect(outdoors.handovers == 0)
    }

    @Test func theOtherSourceTakesOverOnlyWhenClearlyBetterForTheDwell() {
        var policy = HandoverPolicy()  // margin 1.5, dwell 3 s
        #expect(policy.choose(beacons: nil, gnss: Self.input(3, at: 0), now: 0) == .gnss)
        // Beacons heard but not 1.5× better: no change, however long.
        for t in stride(from: 1.0, through: 20, by: 1) {
            #expect(policy.choose(beacons: Self.input(2.1, at: t, anchors: 5), gnss: Self.input(3, at: t), now: t) == .gnss)
        }
        // Clearly better, but for 2 s only: no change.
        for t in [21.0, 22, 23] {
            #expect(policy.choose(beacons: Self.input(1.5, at: t, anchors: 5), gnss: Self.input(3, at: t), now: t) == .gnss)
        }
        #expect(policy.choose(beacons: Self.input(2.5, at: 24, anchors: 5), gnss: Self.input(3, at: 24), now: 24) == .gnss)
        // Clearly better for 3 s: beacons.
        for t in [25.0, 26, 27] {
            #expect(policy.choose(beacons: Self.input(1.5, at: t, anchors: 5), gnss: Self.input(3, at: t), now: t) == .gnss)
        }
        #expect(policy.choose(beacons: Self.input(1.5, at: 28, anchors: 5), gnss: Self.input(3, at: 28), now: 28) == .beacons)
        #expect(policy.handovers == 1)
        // Back the other way needs GNSS 1.5× better than the beacons, or beacons gone, for 3 s.
        #expect(policy.choose(beacons: Self.input(2, at: 29, anchors: 5), gnss: Self.input(1.5, at: 29), now: 29) == .beacons)
        for t in [30.0, 31, 32] {
            #expect(policy.choose(beacons: Self.input(2, at: 25, anchors: 5), gnss: Self.input(3, at: t), now: t) == .beacons)
        }
        #expect(policy.choose(beacons: Self.input(2, at: 25, anchors: 5), gnss: Self.input(3, at: 33), now: 33) == .gnss)
        #expect(policy.handovers == 2)
    }

    @Test func lastKnownAndStaleFixesDoNotCount() {
        let policy = HandoverPolicy()
        #expect(!policy.isUsable(Self.input(1, at: 0, anchors: 5, lastKnown: true), as: .beacons, now: 0))
        #expect(!policy.isUsable(Self.input(1, at: 0), as: .gnss, now: 3.5))
        #expect(policy.isUsable(Self.input(1, at: 0), as: .gnss, now: 3))
        #expect(!policy.isUsable(Self.input(1, at: 0, anchors: 2), as: .beacons, now: 0))
    }
}
