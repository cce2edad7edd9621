/// The next grid time of every live target, as a binary min-heap ordered by (time, target id).
///
/// Each live target has exactly one entry; the engine pops the earliest, emits that fix and pushes the
/// target's next grid time, so emitting a fix costs O(log targets) however many targets are live. Ties go
/// to the smaller target id, which keeps the output order independent of hashing and arrival order.
struct GridSchedule {
    struct Entry {
        var t: Double
        var target: String
        var slot: Int
    }

    private var heap: [Entry] = []

    /// The earliest entry, if any.
    var first: Entry? { heap.first }

    /// Number of entries.
    var count: Int { heap.count }

    /// Adds an entry.
    mutating func push(_ e: Entry) {
        heap.append(e)
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard Self.precedes(heap[i], heap[parent]) else { break }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    /// Removes and returns the earliest entry.
    mutating func popFirst() -> Entry? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count && Self.precedes(heap[l], heap[m]) { m = l }
            if r < heap.count && Self.precedes(heap[r], heap[m]) { m = r }
            if m == i { break }
            heap.swapAt(i, m)
            i = m
        }
        return top
    }

    static func precedes(_ a: Entry, _ b: Entry) -> Bool {
        a.t < b.t || (a.t == b.t && a.target < b.target)
    }
}
