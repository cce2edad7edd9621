/// What the scanner did to get its scan back, and why: the label pair of `bluedot_scan_recoveries_total`.
public struct ScanRecovery: Sendable, Hashable {
    /// What was done.
    public enum Action: String, Sendable, Hashable, CaseIterable {
        /// Scan disable, parameters and enable again, on the same link.
        case rearm
        /// The link closed and opened again, and the controller set up from its Reset.
        case reopen
    }

    /// Why.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// Another program on the adapter sent a scan enable command (`hcitool`, `bluetoothctl scan off`).
        case elsewhere
        /// Another program reset the controller: the kernel's set-up after the adapter was powered up again
        /// (`hciconfig hci0 up`, rfkill, bluetoothd powering it on).
        case reset
        /// Reports stopped for much longer than their recent rate explains (`ScanWatch`).
        case stall
        /// A re-arm's command failed.
        case failed
    }

    public var action: Action
    public var reason: Reason

    public init(_ action: Action, _ reason: Reason) {
        self.action = action
        self.reason = reason
    }
}

/// The scan's supervision: notices when advertising reports stop for much longer than their recent rate explains,
/// while they had been coming (`isStalled`), and paces what the scanner does about it (`nextAction`).
///
/// The rule: with at least `minimumReports` reports in the `windowSeconds` before the last one (the anchors were
/// being heard), a silence longer than `max(minimumSilenceSeconds, rateFactor / rate)` is a stall. Without that
/// evidence nothing is a stall: an empty room is silent. The constants were chosen by measurement over the shared
/// datasets' and the repository's recordings (`Tools/analysis/stall_gaps.py`, docs/hardening.md): see each one.
///
/// An episode begins at the first stall: the scan is re-armed at once, and while the silence lasts the link is
/// reopened, each time after twice the wait before (from the silence limit, at most `longestWaitSeconds`). The first
/// report after that ends it. The rate the limit came from is kept through the episode (the silence itself would
/// otherwise wipe the evidence out), and across reopens of the link.
public struct ScanWatch: Sendable {
    /// Seconds of reports the rate is taken over.
    public var windowSeconds = 60
    /// Reports needed within the window before a silence can be a stall: a scanner hearing under one report every
    /// 3 s is not watched.
    public var minimumReports = 20
    /// The shortest silence that is a stall, seconds. The longest silence measured while a scanner was fine was
    /// 8.4 s (UJI's phone between empty scans; 2.7 s elsewhere): 15 s keeps 1.8 times clear of it.
    public var minimumSilenceSeconds = 15.0
    /// A stall is a silence of this many mean gaps between reports (at the window's rate). Measured over 3.76
    /// receiver-hours of real recordings (48,398 reports: BOUN, WUT, UJI and an Android capture), the longest silence
    /// was 5.9 mean gaps where reports are timed each (18 in UJI's one-per-scan timing): with 20 and the minimum above,
    /// no silence of that data came within 3.8 times of its limit, and 10 or more gave no false stall at all.
    public var rateFactor = 20.0
    /// The longest wait between two actions of one episode, seconds.
    public var longestWaitSeconds = 300.0

    /// Report counts per whole second, the newest last, spanning at most `windowSeconds`.
    private var buckets: [(second: Int, count: Int)] = []
    /// Clock time of the newest report.
    public private(set) var lastReport: Double?
    /// The episode under way, if any.
    public private(set) var episode: Episode?

    /// A stall being dealt with.
    public struct Episode: Sendable, Hashable {
        /// Clock time of the last report before it.
        public var since: Double
        /// The silence limit when it began (seconds).
        public var limit: Double
        /// The report rate when it began (per second).
        public var rate: Double
        /// Actions taken so far.
        public var actions = 0
        /// Clock time of the next action, if the silence lasts.
        public var nextAt: Double
    }

    public init() {}

    /// Counts `count` reports that arrived at clock time `time`; ends an episode (returned) when one was under way.
    public mutating func heard(_ count: Int = 1, at time: Double) -> Episode? {
        guard count > 0 else { return nil }
        let second = Int(time.rounded(.down))
        if let last = buckets.last, last.second == second {
            buckets[buckets.count - 1].count += count
        } else {
            buckets.append((second, count))
        }
        while let first = buckets.first, first.second <= second - windowSeconds { buckets.removeFirst() }
        lastReport = max(lastReport ?? time, time)
        defer { episode = nil }
        return episode
    }

    /// Reports per second over the window before the last report; nil with fewer than `minimumReports` in it.
    public var rate: Double? {
        let total = buckets.reduce(0) { $0 + $1.count }
        guard total >= minimumReports else { return nil }
        return Double(total) / Double(windowSeconds)
    }

    /// The silence after which the scan counts as stalled (seconds); nil without the evidence.
    public var silenceLimit: Double? {
        rate.map { max(minimumSilenceSeconds, rateFactor / $0) }
    }

    /// True when the scan is silent past its limit at clock time `now`.
    public func isStalled(at now: Double) -> Bool {
        guard let lastReport, let limit = silenceLimit else { return false }
        return now - lastReport > limit
    }

    /// What to do at clock time `now`: `.rearm` at the first stall of an episode, `.reopen` each time the next wait
    /// of one under way runs out, nil otherwise. Each call that returns an action counts it.
    public mutating func nextAction(at now: Double) -> ScanRecovery.Action? {
        if var current = episode {
            guard now >= current.nextAt else { return nil }
            let wait = min(longestWaitSeconds, current.limit * Double(1 << min(current.actions, 16)))
            current.actions += 1
            current.nextAt = now + wait
            episode = current
            return .reopen
        }
        guard isStalled(at: now), let lastReport, let limit = silenceLimit, let rate else { return nil }
        episode = Episode(since: lastReport, limit: limit, rate: rate, actions: 1, nextAt: now + limit)
        return .rearm
    }
}
