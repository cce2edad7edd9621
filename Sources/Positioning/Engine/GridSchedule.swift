import BlueDotCore

/// The next grid time of every live target, as a min-heap ordered by (time, target id).
///
/// Each live target has exactly one entry; the engine pops the earliest, emits that fix and pushes the
/// target's next grid time, so emitting a fix costs O(log targets) however many targets are live. Ties go
/// to the smaller target id, which keeps the output order independent of hashing and arrival order.
typealias GridSchedule = BinaryHeap<GridEntry>

/// One target's next grid time and its tracker slot.
struct GridEntry: Comparable {
    var t: Double
    var target: String
    var slot: Int

    /// Earlier time first, then the smaller target id.
    static func < (a: GridEntry, b: GridEntry) -> Bool { a.t < b.t || (a.t == b.t && a.target < b.target) }
}
