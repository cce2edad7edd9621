import BlueDotCore

/// Indoors and outdoors: one blue dot from a beacon source and a GNSS source (gpsd), handing over between them by
/// `HandoverPolicy` (beacons while anchors are heard with a clearly better accuracy, GNSS outdoors, with a margin
/// and a dwell time so that a tag in a doorway does not flap).
///
/// Every location delivered is the chosen source's latest fix, in WGS84 through the venue's `origin` (beacon fixes
/// are placed on it; GNSS fixes keep the fix's own latitude and longitude), with `source` saying which one made it.
/// Floors come from the beacons; a GNSS location has none. Headings from either source (gpsd's ATT) are passed
/// on to `didUpdateHeading` and attached to locations while fresh. Start starts both sources and succeeds when
/// either does; stop stops both. Everything waits on and reads the one `clock`.
public final class HandoverLocationDataSource: LocationDataSource, @unchecked Sendable {
    // @unchecked: the lets are Sendable; the mutable state is behind `state`.
    private struct State {
        var policy: HandoverPolicy
        var beacons: HandoverPolicy.Input?
        var gnss: HandoverPolicy.Input?
        var heading: (degrees: Double, at: Double)?
        var received = 0
        var tasks: [Task<Void, Never>] = []
    }

    /// The beacon source (nil: GNSS alone, every location says `gnss`).
    public let beacons: LocationDataSource?
    /// The GNSS source.
    public let gnss: LocationDataSource
    /// The venue's origin: beacon fixes are placed on the earth through it.
    public let origin: GeographicOrigin?
    /// How long a heading stays attached to locations, seconds.
    public static let headingMaxAgeSeconds = 5.0
    private let clock: any BlueDotClock
    private let state: LockedValue<State>

    /// Creates a hand-over between `beacons` and `gnss`.
    public init(beacons: LocationDataSource?, gnss: LocationDataSource, origin: GeographicOrigin?,
                settings: HandoverPolicy.Settings = HandoverPolicy.Settings(),
                clock: any BlueDotClock = SystemClock()) {
        self.beacons = beacons
        self.gnss = gnss
        self.origin = origin
        self.clock = clock
        state = LockedValue(State(policy: HandoverPolicy(settings: settings)))
        super.init()
    }

    /// The source in use now; nil until one delivered a usable fix.
    public var currentSource: PositionSource? { state.withLock { $0.policy.current } }

    /// How many times the source changed after the first choice.
    public var handoverCount: Int { state.withLock { $0.policy.handovers } }

    /// How many fixes came in from both sources since creation.
    public var receivedCount: Int { state.withLock { $0.received } }

    /// Subscribes to both sources, then starts them; started when either starts.
    override public func doStart() async {
        var tasks: [Task<Void, Never>] = []
        var children: [(LocationDataSource, PositionSource)] = [(gnss, .gnss)]
        if let beacons { children.append((beacons, .beacons)) }
        for (child, kind) in children {
            let locations = child.locations, headings = child.headings
            tasks.append(Task { for await location in locations { self.receive(location, from: kind) } })
            tasks.append(Task { for await heading in headings { self.receive(heading: heading) } })
        }
        state.withLock { $0.tasks = tasks }
        var errors: [any Error] = []
        for (child, _) in children {
            do { try await child.start() } catch { errors.append(error) }
        }
        if errors.count == children.count, let first = errors.first {
            tasks.forEach { $0.cancel() }
            didStartOrFailWithError(first)
        } else {
            didStartOrFailWithError(nil)
        }
    }

    /// Stops both sources and the following.
    override public func doStop() async {
        await gnss.stop()
        await beacons?.stop()
        let tasks = state.withLock { s in defer { s.tasks = [] }; return s.tasks }
        tasks.forEach { $0.cancel() }
        didStop()
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
            if fix.headingDegrees == nil, let heading = s.heading, now - heading.at <= Self.headingMaxAgeSeconds {
                fix.headingDegrees = heading.degrees
            }
            return fix
        }
        if let out { didUpdate(out) }
    }

    /// A heading from either source: passed on, and kept for the locations.
    func receive(heading: Double) {
        let now = clock.now()
        state.withLock { $0.heading = (heading, now) }
        didUpdateHeading(heading)
    }
}
