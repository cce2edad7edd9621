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
    public var newest: Double { newestAdmitted }
    /// The latest cutoff released by `popReady(notAfter:)`: older elements are late.
    public var released: Double { releasedCutoff }
    // Inlinable (with its state usable from inlined code) so that callers in other modules get it specialized
    // for their element type: a site's solver runs every sighting through one.
    @usableFromInline var newestAdmitted = -Double.infinity
    @usableFromInline var releasedCutoff = -Double.infinity
    // Times and elements side by side; a released element's slot is emptied (moved out, not copied) until the
    // slots before `head` are dropped.
    @usableFromInline var times: [Double] = []
    @usableFromInline var elements: [Element?] = []
    @usableFromInline var head = 0

    /// Creates an empty buffer with the given tolerance (seconds, >= 0).
    @inlinable
    public init(tolerance: Double) {
        self.tolerance = max(0, tolerance)
    }

    /// How many elements are held.
    @inlinable public var count: Int { times.count - head }

    /// Offers an element with its time (taken, not copied, when the caller passes its last use).
    @inlinable
    public mutating func insert(_ element: consuming Element, t: Double) -> Admission {
        if t < newestAdmitted - tolerance || t < releasedCutoff { return .late }
        let reordered = t < newestAdmitted
        newestAdmitted = max(newestAdmitted, t)
        // Insert after the last held element with time <= t (stable; usually the end).
        var position = times.count
        while position > head, times[position - 1] > t { position -= 1 }
        if position == times.count {
            times.append(t)
            elements.append(element)
        } else {
            times.insert(t, at: position)
            elements.insert(element, at: position)
        }
        return .admitted(reordered: reordered)
    }

    /// The oldest held element if it can no longer be preceded by a later arrival.
    @inlinable
    public mutating func popReady() -> Element? {
        guard head < times.count, times[head] <= newestAdmitted - tolerance else { return nil }
        return popFirst()
    }

    /// The oldest held element at or before `cutoff` (a clock's time less a window); from now on anything older
    /// than `cutoff` is refused as late, so the output stays in time order.
    @inlinable
    public mutating func popReady(notAfter cutoff: Double) -> Element? {
        releasedCutoff = max(releasedCutoff, cutoff)
        guard head < times.count, times[head] <= cutoff else { return nil }
        return popFirst()
    }

    /// The oldest held element regardless of the tolerance (to drain at the end of the stream).
    @inlinable
    public mutating func popFirst() -> Element? {
        guard head < times.count else { return nil }
        var element: Element?
        swap(&element, &elements[head])
        head += 1
        if head == times.count {
            times.removeAll(keepingCapacity: true)
            elements.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= times.count {
            times.removeSubrange(0..<head)
            elements.removeSubrange(0..<head)
            head = 0
        }
        return element
    }
}
