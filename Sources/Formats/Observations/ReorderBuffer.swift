import Positioning

/// Puts a nearly time-ordered stream back in order, holding each element for at most `tolerance` of stream time.
///
/// Policy: with `newest` the latest time admitted so far, an element older than `newest - tolerance` is late and
/// refused; any other element is admitted (and counted as reordered when older than `newest`). An element leaves
/// once `t <= newest - tolerance`: no element admitted later can be older, so the output is non-decreasing in time.
/// Equal times leave in arrival order. Memory holds one tolerance window of elements.
///
/// A live stream (a site's receivers) releases by its clock instead: `popReady(notAfter:)` lets out what is at or
/// before a cutoff and refuses, from then on, anything older than the cutoff (with an infinite `tolerance` the
/// cutoff alone decides).
public struct ReorderBuffer<Element> {
    /// What happened to an offered element.
    public enum Admission: Sendable, Equatable {
        /// Admitted; `reordered` when it arrived after a newer one.
        case admitted(reordered: Bool)
        /// Refused: older than `newest - tolerance`.
        case late
    }

    /// The tolerance, seconds.
    public let tolerance: Double
    /// The newest time admitted so far.
    public private(set) var newest = -Double.infinity
    /// The latest cutoff released by `popReady(notAfter:)`: older elements are late.
    public private(set) var released = -Double.infinity
    private var items: [(t: Double, element: Element)] = []
    private var head = 0

    /// Creates an empty buffer with the given tolerance (seconds, >= 0).
    public init(tolerance: Double) {
        self.tolerance = max(0, tolerance)
    }

    /// How many elements are held.
    public var count: Int { items.count - head }

    /// Offers an element with its time.
    public mutating func insert(_ element: Element, t: Double) -> Admission {
        if t < newest - tolerance || t < released { return .late }
        let reordered = t < newest
        newest = max(newest, t)
        // Insert after the last held element with time <= t (stable; usually the end).
        var position = items.count
        while position > head, items[position - 1].t > t { position -= 1 }
        items.insert((t, element), at: position)
        return .admitted(reordered: reordered)
    }

    /// The oldest held element if it can no longer be preceded by a later arrival.
    public mutating func popReady() -> Element? {
        guard head < items.count, items[head].t <= newest - tolerance else { return nil }
        return popFirst()
    }

    /// The oldest held element at or before `cutoff` (a clock's time less a window); from now on anything older
    /// than `cutoff` is refused as late, so the output stays in time order.
    public mutating func popReady(notAfter cutoff: Double) -> Element? {
        released = max(released, cutoff)
        guard head < items.count, items[head].t <= cutoff else { return nil }
        return popFirst()
    }

    /// The oldest held element regardless of the tolerance (to drain at the end of the stream).
    public mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        let element = items[head].element
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= items.count {
            items.removeSubrange(0..<head)
            head = 0
        }
        return element
    }
}
