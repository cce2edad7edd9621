import BlueDotCore
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
    // The held elements in a min-heap by (time, arrival number): O(log n) to admit and to let out whatever the
    // disorder. A site's solver holds a whole window of every receiver's sightings (30,000 at 100,000 a second)
    // and each receiver's batch arrives 100 ms behind the newest: a sorted array shifted most of its window on
    // every insertion, two thirds of the solver's CPU (`docs/site.md`, "Figures").
    @usableFromInline var held = BinaryHeap<Held>()
    @usableFromInline var nextSequence = 0

    /// A held element with its time and arrival number (equal times leave in arrival order).
    @usableFromInline
    struct Held: Comparable {
        @usableFromInline var t: Double
        @usableFromInline var sequence: Int
        @usableFromInline var element: Element

        @inlinable
        init(t: Double, sequence: Int, element: consuming Element) {
            self.t = t
            self.sequence = sequence
            self.element = element
        }

        @inlinable
        static func < (a: Held, b: Held) -> Bool { a.t < b.t || (a.t == b.t && a.sequence < b.sequence) }

        @inlinable
        static func == (a: Held, b: Held) -> Bool { a.t == b.t && a.sequence == b.sequence }
    }

    /// Creates an empty buffer with the given tolerance (seconds, >= 0).
    @inlinable
    public init(tolerance: Double) {
        self.tolerance = max(0, tolerance)
    }

    /// How many elements are held.
    @inlinable public var count: Int { held.count }

    /// Offers an element with its time (taken, not copied, when the caller passes its last use).
    @inlinable
    public mutating func insert(_ element: consuming Element, t: Double) -> Admission {
        if t < newestAdmitted - tolerance || t < releasedCutoff { return .late }
        let reordered = t < newestAdmitted
        newestAdmitted = max(newestAdmitted, t)
        held.push(Held(t: t, sequence: nextSequence, element: element))
        nextSequence += 1
        return .admitted(reordered: reordered)
    }

    /// The oldest held element if it can no longer be preceded by a later arrival.
    @inlinable
    public mutating func popReady() -> Element? {
        guard let first = held.first, first.t <= newestAdmitted - tolerance else { return nil }
        return popFirst()
    }

    /// The oldest held element at or before `cutoff` (a clock's time less a window); from now on anything older
    /// than `cutoff` is refused as late, so the output stays in time order.
    @inlinable
    public mutating func popReady(notAfter cutoff: Double) -> Element? {
        releasedCutoff = max(releasedCutoff, cutoff)
        guard let first = held.first, first.t <= cutoff else { return nil }
        return popFirst()
    }

    /// The oldest held element regardless of the tolerance (to drain at the end of the stream).
    @inlinable
    public mutating func popFirst() -> Element? {
        held.popFirst()?.element
    }
}
