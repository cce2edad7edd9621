/// A binary min-heap: the engine's grid schedule and the simulator's event queue both pop their smallest
/// element in O(log n).
///
/// Elements order themselves (`Comparable`); give `<` a tie-break (a target id, a link index) so equal keys pop
/// in a fixed order and runs stay deterministic. Sift-up and sift-down as in Cormen et al., *Introduction to
/// Algorithms*, §6. Inlinable, so callers in other modules get it specialized for their element type.
public struct BinaryHeap<Element: Comparable> {
    @usableFromInline var elements: [Element] = []

    /// An empty heap.
    @inlinable public init() {}

    /// The earliest element, if any.
    @inlinable public var first: Element? { elements.first }

    /// Number of elements.
    @inlinable public var count: Int { elements.count }

    /// Whether the heap holds nothing.
    @inlinable public var isEmpty: Bool { elements.isEmpty }

    /// Adds an element.
    @inlinable public mutating func push(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard elements[child] < elements[parent] else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest element.
    @inlinable public mutating func popFirst() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let first = elements.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < elements.count, elements[left] < elements[smallest] { smallest = left }
            if right < elements.count, elements[right] < elements[smallest] { smallest = right }
            guard smallest != parent else { break }
            elements.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}

extension BinaryHeap: Sendable where Element: Sendable {}
