import BlueDotCore
import Formats
import Testing

/// `ReorderBuffer` (a heap by time and arrival) against the plain definition of its output: the admitted elements
/// stably sorted by time, on seeded streams with disorder and ties.
@Suite struct ReorderBufferTests {
    /// A stream of (time, id): times on a coarse grid (so ties are common), each up to `jitter` behind the newest.
    static func stream(count: Int, jitter: Double, seed: UInt64) -> [(t: Double, id: Int)] {
        var generator = SplitMix64(seed: seed)
        var newest = 0.0
        return (0..<count).map { id in
            newest += Double(Int.random(in: 0...2, using: &generator)) * 0.1
            let back = Double(Int.random(in: 0...Int(jitter * 10), using: &generator)) * 0.1
            return (max(0, newest - back), id)
        }
    }

    @Test(arguments: [1 as UInt64, 2, 3, 42])
    func drainedItIsTheStableSortOfWhatItAdmitted(seed: UInt64) {
        let input = Self.stream(count: 2000, jitter: 0.5, seed: seed)
        var buffer = ReorderBuffer<Int>(tolerance: 0.3)
        var admitted: [(t: Double, id: Int)] = []
        var out: [Int] = []
        for (t, id) in input {
            if case .admitted = buffer.insert(id, t: t) { admitted.append((t, id)) }
            while let id = buffer.popReady() { out.append(id) }
        }
        while let id = buffer.popFirst() { out.append(id) }
        let expected = admitted.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }
            .map(\.element.id)
        #expect(out == expected)
        #expect(admitted.count < input.count, "the stream has late elements too")
    }

    @Test func aClockReleasesInTimeOrderAndRefusesWhatIsOlderThanItsCutoff() {
        var buffer = ReorderBuffer<String>(tolerance: .infinity)
        for (t, v) in [(2.0, "b1"), (1.0, "a"), (2.0, "b2"), (4.0, "d"), (2.0, "b3")] { _ = buffer.insert(v, t: t) }
        var out: [String] = []
        while let v = buffer.popReady(notAfter: 3) { out.append(v) }
        #expect(out == ["a", "b1", "b2", "b3"], "ties leave in arrival order")
        #expect(buffer.insert("late", t: 2.5) == .late)
        #expect(buffer.insert("c", t: 3.5) == .admitted(reordered: true))
        #expect(buffer.count == 2)
    }
}
