import BlueDotCore
import LocationBus
import Positioning

/// Indoors and outdoors: one blue dot, the target `self`, relayed from a beacon source and gpsd by
/// `HandoverPolicy` (beacons while anchors are heard with a clearly better accuracy, GNSS outdoors, with a margin
/// and a dwell time so that a tag in a doorway does not flap).
///
/// Every location it makes is the chosen source's latest fix, in WGS84 through the venue's `origin` (beacon fixes
/// are placed on it; GNSS fixes keep the fix's own latitude and longitude), with `source` saying which one made it.
/// Floors come from the beacons; a GNSS location has none. gpsd's heading (ATT) goes onto beacon fixes too while
/// it is fresh. It observes both sources in place and runs and stops them; it is `available` while either is.
/// Everything reads the one `clock`.
public final class HandoverLocationSource: LocationSource, LocationProducer, @unchecked Sendable {
    // @unchecked: the lets are Sendable; the mutable state is behind `state`.
    private struct State {
        var policy: HandoverPolicy
        var beacons: HandoverPolicy.Input?
        var gnss: HandoverPolicy.Input?
        var received = 0
    }

    /// The beacon source (nil: GNSS alone, every location says `gnss`).
    public let beacons: (any LocationProducer)?
    /// The GNSS source (gpsd's `GPSDLocationSource`).
    public let gnss: any LocationProducer & HeadingSource
    /// The venue's origin: beacon fixes are placed on the earth through it.
    public let origin: GeographicOrigin?
    /// The target relayed from both sources, and made here.
    public let targetID: String
    private let state: LockedValue<State>
    private let followers: [Follower]

    /// Creates a hand-over between `beacons` and `gnss`, relaying their `targetID`.
    public init(id: String = Observation.selfTarget, beacons: (any LocationProducer)?,
                gnss: any LocationProducer & HeadingSource, origin: GeographicOrigin?,
                targetID: String = Observation.selfTarget,
                settings: HandoverPolicy.Settings = HandoverPolicy.Settings(), deleteAfterSeconds: Double = 60,
                clock: any BlueDotClock = SystemClock()) {
        self.beacons = beacons
        self.gnss = gnss
        self.origin = origin
        self.targetID = targetID
        state = LockedValue(State(policy: HandoverPolicy(settings: settings)))
        followers = [Follower(kind: .gnss)] + (beacons == nil ? [] : [Follower(kind: .beacons)])
        super.init(id: id, deleteAfterSeconds: deleteAfterSeconds, clock: clock)
        for follower in followers { follower.handover = self }
    }

    /// The source in use now; nil until one delivered a usable fix.
    public var currentSource: PositionSource? { state.withLock { $0.policy.current } }

    /// How many times the source changed after the first choice.
    public var handoverCount: Int { state.withLock { $0.policy.handovers } }

    /// How many fixes came in from both sources since creation.
    public var receivedCount: Int { state.withLock { $0.received } }

    /// Follows both sources and runs them until `stop()`. Throws when both fail for good.
    public func run() async throws {
        let producers: [any LocationProducer] = [gnss] + (beacons.map { [$0] } ?? [])
        let children = Array(zip(producers, followers))
        for (child, follower) in children { child.addObserver(follower) }
        defer { for (child, follower) in children { child.removeObserver(follower) } }
        let failures = await withTaskGroup(of: (any Error)?.self) { group in
            for (child, _) in children {
                group.addTask {
                    do { try await child.run() } catch { return error }
                    return nil
                }
            }
            var failures: [any Error] = []
            for await failure in group { if let failure { failures.append(failure) } }
            return failures
        }
        if failures.count == children.count, let first = failures.first {
            setStatus(.unavailable)
            throw first
        }
        setStatus(.inactive)
    }

    /// Stops both sources.
    public func stop() async {
        await gnss.stop()
        await beacons?.stop()
        setStatus(.inactive)
    }

    /// One fix of one source: the policy decides, and the chosen source's latest fix goes out.
    func receive(_ location: Location, from kind: PositionSource) {
        let now = clock.now()
        let out = state.withLock { s -> Location? in
            s.received += 1
            let input = HandoverPolicy.Input(location, arrivedAt: now)
            if kind == .gnss { s.gnss = input } else { s.beacons = input }
            let before = s.policy.current
            let chosen = s.policy.choose(beacons: s.beacons, gnss: s.gnss, now: now)
                ?? (beacons == nil ? .gnss : nil)
            // Deliver when the chosen source spoke, or, once, when the other source's fix made it the chosen one.
            guard let chosen, chosen == kind || chosen != before,
                  var fix = (chosen == .gnss ? s.gnss : s.beacons)?.location
            else { return nil }
            if let origin { fix.place(on: origin) }
            if chosen == .gnss { fix.floor = nil }
            fix.source = chosen
            fix.targetID = targetID
            if fix.headingDegrees == nil { fix.headingDegrees = gnss.heading(at: now) }
            return fix
        }
        if let out { update([out]) }
    }

    /// Either source's status: available while one is.
    private func childStatusChanged() {
        let statuses = [gnss.status] + (beacons.map { [$0.status] } ?? [])
        if statuses.contains(.available) {
            setStatus(.available)
        } else if statuses.allSatisfy({ $0 == .unavailable }) {
            setStatus(.unavailable)
        }
    }

    /// Relays one source's target to the hand-over; called in place, on that source's thread.
    private final class Follower: LocationSourceObserver, @unchecked Sendable {
        // @unchecked: `handover` is set once, before the follower is registered.
        let kind: PositionSource
        weak var handover: HandoverLocationSource?

        init(kind: PositionSource) {
            self.kind = kind
        }

        func onLocationsUpdated(_ locations: [Location], source: LocationSource) {
            guard let handover else { return }
            for location in locations where location.targetID == handover.targetID {
                handover.receive(location, from: kind)
            }
        }

        func onLocationsDeleted(_ targetIDs: [String], source: LocationSource) {}

        func onStatusChanged(_ status: LocationSourceStatus, source: LocationSource) {
            handover?.childStatusChanged()
        }
    }
}

/// A source of headings beside its locations (gpsd's ATT: a compass, NMEA HDT, an IMU), which the hand-over puts
/// on beacon fixes too.
public protocol HeadingSource: AnyObject, Sendable {
    /// The latest heading, degrees clockwise from north, while it is fresh at clock time `now`; nil otherwise.
    func heading(at now: Double) -> Double?
}
