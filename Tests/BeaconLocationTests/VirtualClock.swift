import LocationDisplay
import BlueDotCore

/// A clock on which every sleep returns at once after moving time to its deadline: a recording paced by it
/// replays as fast as the consumer takes packets, yet every packet arrives at its recorded time. It is both a
/// Swift `Clock` (for `BtsnoopReplayTransport`) and a `BlueDotClock` (stamping sightings), reading
/// `originSeconds` at its start.
final class VirtualClock: Clock {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    let originSeconds: Double
    private let current = LockedValue(Instant(offset: .zero))

    init(originSeconds: Double) {
        self.originSeconds = originSeconds
    }

    var now: Instant { current.withLock { $0 } }
    var minimumResolution: Duration { .microseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        current.withLock { $0 = max($0, deadline) }
    }

    /// The same time as a `BlueDotClock`, in seconds from `originSeconds`.
    var seconds: Seconds { Seconds(clock: self) }

    struct Seconds: BlueDotClock {
        let clock: VirtualClock

        func now() -> Double {
            let offset = clock.now.offset.components
            return clock.originSeconds + Double(offset.seconds) + Double(offset.attoseconds) * 1e-18
        }

        func sleep(until deadline: Double) async throws {
            try Task.checkCancellation()
            let target = Instant(offset: .microseconds(((deadline - clock.originSeconds) * 1e6).rounded()))
            try await clock.sleep(until: target, tolerance: nil)
        }
    }
}
