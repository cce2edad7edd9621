import BlueDotCore
import Formats
import Foundation
import LocationBus
import Positioning

/// `bluedot-bench presence FIXES VENUE [--away-timeout S] [--away-timeout-inside S] [--reach-seconds S]
/// [--lose-seconds K] [--exposure] [--trace SUFFIX]`: the presence rule again, over fixes already made (location
/// JSONL: what `bluedot replay` writes, or the solver's feed that `Tools/virtual-world/household.py --keep` keeps as
/// `fixes.jsonl`). Each fix reaches a `LocationSource` with the venue's `PresenceRule` at its own time on a manual
/// clock, and the source's expiry runs once a second between fixes, as the daemon's housekeeping does. Prints every
/// `not_home` a target reads: when (the time since the first fix, which on a household day is the time of day), after
/// how long a silence, and the last current fix before it. A change to the rule is so measured on a whole simulated
/// day in seconds instead of a 24-minute run. `--lose-seconds` then judges each departure read at an exit again
/// without the last K seconds of its target's current fixes before the silence, and counts those still read at an
/// exit: how much of a walk to the door the rule can do without. `--exposure` lists, per target, the spans of fixes
/// after which a silence would read as a departure (`printExposure`). `--reach-seconds` sets
/// `PresenceRule.reachSeconds`.
/// `--trace` prints every current fix of the targets whose id ends in SUFFIX with the rule's verdicts on it (at an
/// exit when walking / standing, inside another room, turning back).
enum PresenceBenchmark {
    static func run(_ arguments: [String]) throws {
        var paths: [String] = []
        var away = PresenceRule.defaultAwayAfterSeconds
        var awayInside = PresenceRule.defaultAwayAfterSecondsInside
        var trace: String?
        var reach = PresenceRule.defaultReachSeconds
        var lose: Double?
        var exposure = false
        var i = 0
        while i < arguments.count {
            switch arguments[i] {
            case "--trace":
                guard i + 1 < arguments.count else { throw BenchError("--trace needs the end of a target id") }
                trace = arguments[i + 1]
                i += 2
            case "--exposure":
                exposure = true
                i += 1
            case "--reach-seconds", "--lose-seconds":
                guard i + 1 < arguments.count, let v = Double(arguments[i + 1]), v >= 0 else {
                    throw BenchError("\(arguments[i]) needs a number of seconds, 0 or more")
                }
                if arguments[i] == "--reach-seconds" { reach = v } else { lose = v }
                i += 2
            case "--away-timeout", "--away-timeout-inside":
                guard i + 1 < arguments.count, let v = Double(arguments[i + 1]) else {
                    throw BenchError("\(arguments[i]) needs a number of seconds")
                }
                if arguments[i] == "--away-timeout" { away = v } else { awayInside = v }
                i += 2
            default:
                paths.append(arguments[i])
                i += 1
            }
        }
        guard paths.count == 2 else { throw BenchError("usage: bluedot-bench presence FIXES VENUE") }
        // In time order: a file may list its targets one after another (household.py's does).
        let fixes = try LocationReader.read(path: paths[0]).enumerated()
            .sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }.map(\.element)
        let venue = try VenueLoader.load(path: paths[1])
        var rule = PresenceRule(venue: venue, awayAfterSeconds: away, awayAfterSecondsInside: awayInside)
        rule.reachSeconds = reach
        guard let start = fixes.first?.timestamp, let end = fixes.last?.timestamp else {
            throw BenchError("\(paths[0]) has no fixes")
        }
        func clockTime(_ t: Double) -> String {
            let s = Int((t - start).rounded(.down))
            return String(format: "%02d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
        }
        let events = judge(fixes, rule: rule, from: start, to: end) { fix in
            guard let trace, fix.targetID.hasSuffix(trace), !fix.lastKnown else { return }
            print("    \(clockTime(fix.timestamp)) (\(format(fix.x)), \(format(fix.y))) "
                  + "±\(format(fix.horizontalAccuracyMeters)) m, \(format(fix.speedMetersPerSecond ?? 0)) m/s, "
                  + "room \(fix.room ?? "none"): exit \(rule.isAtExit(fix, walking: true))/\(rule.isAtExit(fix)), "
                  + "inside \(rule.isInside(fix)), turning back \(rule.isTurningBack(fix))")
        }
        print("presence over \(fixes.count) fixes, \(Set(fixes.map(\.targetID)).count) targets, "
              + "\(format((end - start) / 3600)) h; exits \(rule.exitRooms); "
              + "away-timeout \(Int(away)) s, inside \(Int(awayInside)) s, reach \(format(reach)) s")
        for event in events {
            guard let last = event.last else {
                print("  \(clockTime(event.t)) \(event.target): not_home, never heard")
                continue
            }
            print("  \(clockTime(event.t)) \(event.target): not_home after \(format(event.t - last.timestamp)) s "
                  + "silent (began \(event.atExit(rule) ? "at an exit" : "inside")); last current fix "
                  + "\(clockTime(last.timestamp)) at (\(format(last.x)), \(format(last.y))) "
                  + "±\(format(last.horizontalAccuracyMeters)) m, room \(last.room ?? "none")")
        }
        print("not_home events: \(events.count)")
        if exposure { printExposure(fixes, rule: rule, until: end, clockTime: clockTime) }
        guard let lose else { return }
        // Each departure read at an exit, again without its walk's last `lose` seconds of current fixes: a phone's
        // last reports before the door are the likeliest lost (the body between it and the receivers, a busy
        // solver), and the rule should not need them.
        let departures = events.filter { $0.atExit(rule) }
        var kept = 0
        print("departures read at an exit, each again without the last \(format(lose)) s of its current fixes:")
        for departure in departures {
            guard let last = departure.last else { continue }
            let cut = last.timestamp - lose
            let mine = fixes.filter {
                $0.targetID == departure.target
                    && ($0.lastKnown || $0.timestamp <= cut || $0.timestamp > last.timestamp)
            }
            // The same departure: the target's first not_home after the cut, before it was heard again.
            let back = fixes.first { $0.targetID == departure.target && !$0.lastKnown && $0.timestamp > last.timestamp }
            let again = judge(mine, rule: rule, from: start, to: end) { _ in }
                .first { $0.t > cut && $0.t <= (back?.timestamp ?? .infinity) }
            let verdict: String
            if let again, let heard = again.last {
                let atExit = again.atExit(rule)
                kept += atExit ? 1 : 0
                verdict = "not_home \(format(again.t - heard.timestamp)) s after "
                    + "\(clockTime(heard.timestamp)) (\(atExit ? "at an exit" : "inside"))"
            } else {
                verdict = "not read not_home before it was heard again"
            }
            print("  \(clockTime(last.timestamp)) \(departure.target): \(verdict)")
        }
        print("still read at an exit: \(kept) of \(departures.count)")
    }

    /// `--exposure`: every current fix after which a silence would read as a departure (`not_home` after the
    /// away-timeout, at an exit), per target, in spans of such fixes no more than 15 s apart. Each fix is judged
    /// again with its target's current fixes of the away-timeout after it taken out. The spans at the door are the
    /// departures the rule reads; any other span is a false `not_home` waiting for a phone to go quiet there.
    private static func printExposure(_ fixes: [Location], rule: PresenceRule, until end: Double,
                                      clockTime: (Double) -> String) {
        let window = rule.awayAfterSeconds + 10
        let history = 200
        print("fixes after which a silence would read as a departure:")
        for target in Set(fixes.map(\.targetID)).sorted() {
            let mine = fixes.filter { $0.targetID == target }
            var exposed: [Double] = []
            var after = 0
            for (i, fix) in mine.enumerated() where !fix.lastKnown {
                // The rule remembers seconds, not hours: the target's previous `history` fixes are past enough (they
                // reach back before a quiet spell) and keep a whole day's run to seconds; nothing after the window
                // counts.
                while after < mine.count, mine[after].timestamp <= fix.timestamp + window { after += 1 }
                let cut = mine[max(0, i - history)..<after].filter { $0.lastKnown || $0.timestamp <= fix.timestamp }
                let from = cut.first?.timestamp ?? fix.timestamp
                let events = judge(cut, rule: rule, from: from, to: min(end, fix.timestamp + window)) { _ in }
                let read = events.contains {
                    $0.t > fix.timestamp && $0.t <= fix.timestamp + window && $0.atExit(rule)
                }
                if read { exposed.append(fix.timestamp) }
            }
            var spans: [(from: Double, to: Double, fixes: Int)] = []
            for t in exposed {
                if let last = spans.last, t - last.to <= 15 {
                    spans[spans.count - 1] = (last.from, t, last.fixes + 1)
                } else {
                    spans.append((t, t, 1))
                }
            }
            print("  \(target): \(exposed.count) fixes in \(spans.count) spans"
                  + spans.map { " \(clockTime($0.from))-\(clockTime($0.to)) (\($0.fixes))" }.joined(separator: ","))
        }
    }

    /// A `not_home` a target read: when, which target, and its last current fix before it.
    private struct Event {
        var t: Double
        var target: String
        var last: Location?

        /// True when the silence that ended in it began at an exit: it lasted nearer `awayAfterSeconds` than
        /// `awayAfterSecondsInside`.
        func atExit(_ rule: PresenceRule) -> Bool {
            guard let last else { return false }
            let silent = t - last.timestamp
            return abs(silent - rule.awayAfterSeconds) <= abs(silent - rule.awayAfterSecondsInside)
        }
    }

    /// Every `not_home` that `fixes` (in time order) make under `rule`, on a manual clock from `start` to `end`, the
    /// source's expiry run once a second between fixes; `each` sees every fix after the source took it.
    private static func judge(_ fixes: [Location], rule: PresenceRule, from start: Double, to end: Double,
                              each: (Location) -> Void) -> [Event] {
        let clock = ManualClock(start: start)
        let source = LocationSource(id: "presence", deleteAfterSeconds: 3600, clock: clock, presence: rule)
        var lastCurrent: [String: Location] = [:]
        var events: [Event] = []
        var nextExpiry = start + 1
        func expire(until t: Double) {
            while nextExpiry <= t {
                clock.advance(by: nextExpiry - clock.now())
                let before = source.locations.filter { $0.value.presence == .home }.keys
                source.expireStale()
                for target in before where source.locations[target]?.presence == .notHome {
                    events.append(Event(t: nextExpiry, target: target, last: lastCurrent[target]))
                }
                nextExpiry += 1
            }
        }
        for fix in fixes {
            expire(until: fix.timestamp)
            if fix.timestamp > clock.now() { clock.advance(by: fix.timestamp - clock.now()) }
            var plain = fix
            plain.presence = nil
            plain.silentForSeconds = nil
            source.update([plain])
            if !fix.lastKnown { lastCurrent[fix.targetID] = fix }
            each(fix)
        }
        // Up to the end of the file: what came after it is not in it, and every target would seem to fall silent.
        expire(until: end)
        return events
    }

    private static func format(_ v: Double) -> String { String(format: "%.2f", v) }
}
