import BlueDotCore

/// The simulator's pending packets, earliest first; ties in time go to the lower link index, so runs are
/// deterministic.
struct EventQueue {
    /// One scheduled packet: its time, the link it is on and, for regular arrivals, its unjittered time.
    struct Event: Comparable {
        var t: Double
        var link: Int
        var nominal: Double

        /// Earlier time first, then the lower link index.
        static func < (a: Event, b: Event) -> Bool { a.t < b.t || (a.t == b.t && a.link < b.link) }
    }

    private var heap = BinaryHeap<Event>()

    /// Whether no event is scheduled.
    var isEmpty: Bool { heap.isEmpty }

    /// Schedules an event.
    mutating func push(_ event: Event) { heap.push(event) }

    /// Removes and returns the earliest event.
    mutating func pop() -> Event? { heap.popFirst() }
}
