import BlueDotCore
import Foundation
import Testing
@testable import Positioning

/// `FixedLagSmoother`: the position a few seconds back, from the fixes before and after it.
@Suite struct FixedLagSmootherTests {
    /// A target standing still at (2, 3) with noisy fixes: the smoothed position 3 s back is nearer the truth than
    /// the fixes are, on average (by about a sixth: four fixes, and a model that lets a walker move), and its
    /// radius is smaller than theirs.
    @Test func aStandingTargetIsSmoothedTowardsItsPlace() {
        var smoother = FixedLagSmoother(lagSeconds: 3)
        var rng = SplitMix64(seed: 3)
        var fixErrors = 0.0, smoothedErrors = 0.0, count = 0
        for k in 0..<200 {
            let x = 2 + rng.gaussian(), y = 3 + rng.gaussian()
            smoother.add(t: Double(k), x: x, y: y, radius68: 1.5)
            guard k >= 10, let s = smoother.smoothed() else { continue }
            #expect(abs(s.t - Double(k - 3)) < 1e-9, "the fix 3 s back")
            #expect(s.radius68 < 1.5)
            fixErrors += hypot(x - 2, y - 3)
            smoothedErrors += hypot(s.x - 2, s.y - 3)
            count += 1
        }
        #expect(smoothedErrors < 0.9 * fixErrors, "smoothed \(smoothedErrors / Double(count)) m, fixes \(fixErrors / Double(count)) m")
    }

    /// A walk at 1 m/s along x: the smoothed position follows it with no lag of its own (the fixes after it pull it
    /// forward as much as those before pull it back).
    @Test func aWalkIsFollowedWithoutLag() throws {
        var smoother = FixedLagSmoother(lagSeconds: 3)
        for k in 0...20 { smoother.add(t: Double(k), x: Double(k), y: 0, radius68: 0.5) }
        let s = try #require(smoother.smoothed())
        #expect(s.t == 17)
        #expect(abs(s.x - 17) < 0.05 && abs(s.y) < 1e-9, "\(s)")
    }

    /// One fix: itself. A fix older than the newest replaces the later ones (a replay that restarts).
    @Test func oneFixAndOutOfOrderFixes() throws {
        var smoother = FixedLagSmoother(lagSeconds: 3)
        #expect(smoother.smoothed() == nil)
        smoother.add(t: 10, x: 1, y: 2, radius68: 2)
        let one = try #require(smoother.smoothed())
        #expect(one.t == 10 && one.x == 1 && one.y == 2 && abs(one.radius68 - 2) < 1e-9)
        smoother.add(t: 11, x: 5, y: 5, radius68: 2)
        smoother.add(t: 10.5, x: 1, y: 2, radius68: 2)
        let back = try #require(smoother.smoothed())
        #expect(back.t == 10 && abs(back.x - 1) < 0.5, "the fix at 11 is gone: \(back)")
        smoother.reset()
        #expect(smoother.smoothed() == nil)
    }
}
