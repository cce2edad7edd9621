import Testing
@testable import Positioning

@Suite struct FloorTests {
    @Test func switchesOnlyAfterConsistentEvidence() {
        var floor = FloorEstimator(margin: 0.2, confirmations: 3)
        #expect(floor.update([(0, -60), (1, -75)]) == 0)
        // One tick of a louder anchor upstairs does not flip the floor.
        #expect(floor.update([(0, -75), (1, -60)]) == 0)
        #expect(floor.update([(0, -60), (1, -75)]) == 0)
        // Three consecutive ticks do.
        #expect(floor.update([(0, -75), (1, -60)]) == 0)
        #expect(floor.update([(0, -75), (1, -60)]) == 0)
        #expect(floor.update([(0, -75), (1, -60)]) == 1)
        // A near tie never flips it back.
        for _ in 0..<10 { #expect(floor.update([(0, -61), (1, -60)]) == 1) }
        // Nothing heard keeps the floor.
        #expect(floor.update([]) == 1)
    }
}
