import BlueDotCore

/// Chooses between beacon fixes and GNSS fixes for one target: the rule of `HandoverLocationSource`, pure so
/// that a walk can be replayed through it.
///
/// A fix is usable while it is current (not last known), at most `maxAgeSeconds` old on the clock, and, for
/// beacons, made from at least `minimumAnchors` anchors. The first choice is the usable source with the smaller
/// 68% radius. After that the other source takes over only when it stays the better one for `dwellSeconds`
/// without a break, where "better" has a margin: beacons take over from GNSS when the current GNSS fix is
/// unusable or its radius is at least `marginRatio` times the beacons' (the radio hears anchors with a clearly
/// better accuracy), and GNSS takes over from beacons when beacons are unusable or the beacons' radius is at least
/// `marginRatio` times the GNSS one. Between the two ratios, nothing changes: a tag standing in a doorway, where
/// both are heard and about equally good, keeps the source it came in with.
public struct HandoverPolicy: Sendable {
    /// The knobs of the rule.
    public struct Settings: Sendable, Hashable {
        /// Beacon fixes from fewer anchors do not count.
        public var minimumAnchors = 3
        /// A fix older than this (clock seconds since it arrived) does not count.
        public var maxAgeSeconds = 3.0
        /// How much better (ratio of 68% radii) the other source must be to take over.
        public var marginRatio = 1.5
        /// How long the other source must stay better before it takes over, seconds.
        public var dwellSeconds = 3.0

        /// The defaults: 3 anchors, 3 s, 1.5×, 3 s.
        public init() {}
    }

    /// A fix and the clock time it arrived.
    public struct Input: Sendable, Hashable {
        /// The fix.
        public var location: Location
        /// When it arrived, clock seconds.
        public var arrivedAt: Double

        /// Creates an input.
        public init(_ location: Location, arrivedAt: Double) {
            self.location = location
            self.arrivedAt = arrivedAt
        }
    }

    /// The rule's knobs.
    public let settings: Settings
    /// The source in use; nil until one was usable.
    public private(set) var current: PositionSource?
    /// How many times the source changed after the first choice.
    public private(set) var handovers = 0
    private var challengerSince: Double?

    /// Starts with no source chosen.
    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// Whether `input` counts at `now`.
    public func isUsable(_ input: Input?, as source: PositionSource, now: Double) -> Bool {
        guard let input, !input.location.lastKnown, now - input.arrivedAt <= settings.maxAgeSeconds else { return false }
        return source == .gnss || input.location.anchorCount >= settings.minimumAnchors
    }

    /// Updates the choice with the latest fix of each source at clock time `now` and returns the source in use.
    public mutating func choose(beacons: Input?, gnss: Input?, now: Double) -> PositionSource? {
        let b = isUsable(beacons, as: .beacons, now: now) ? beacons?.location.horizontalAccuracyMeters : nil
        let g = isUsable(gnss, as: .gnss, now: now) ? gnss?.location.horizontalAccuracyMeters : nil
        guard let current else {
            switch (b, g) {
            case let (b?, g?): self.current = b <= g ? .beacons : .gnss
            case (_?, nil): self.current = .beacons
            case (nil, _?): self.current = .gnss
            case (nil, nil): break
            }
            return self.current
        }
        let challengerBetter: Bool
        switch current {
        case .gnss:
            challengerBetter = b.map { b in g.map { g in g >= settings.marginRatio * b } ?? true } ?? false
        case .beacons:
            challengerBetter = g.map { g in b.map { b in b >= settings.marginRatio * g } ?? true } ?? false
        }
        guard challengerBetter else {
            challengerSince = nil
            return current
        }
        let since = challengerSince ?? now
        challengerSince = since
        if now - since >= settings.dwellSeconds {
            self.current = current == .gnss ? .beacons : .gnss
            handovers += 1
            challengerSince = nil
        }
        return self.current
    }
}
