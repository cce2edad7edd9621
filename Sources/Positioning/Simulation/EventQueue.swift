/// A binary min-heap of (time, link) events; ties in time go to the lower link index, so runs are deterministic.
struct EventQueue {
    /// One scheduled packet: its time, the link it is on and, for regular arrivals, its unjittered time.
    struct Event {
        var t: Double
        var link: Int
        var nominal: Double
    }

    private var heap: [Event] = []

    /// Whether no event is scheduled.
    var isEmpty: Bool { heap.isEmpty }

    /// Whether `a` comes before `b`.
    private func before(_ a: Event, _ b: Event) -> Bool {
        a.t < b.t || (a.t == b.t && a.link < b.link)
    }

    /// Schedules an event.
    mutating func push(_ event: Event) {
        heap.append(event)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard before(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest event.
    mutating func pop() -> Event? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let first = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, before(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count, before(heap[right], heap[smallest]) { smallest = right }
            guard smallest != parent else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}
