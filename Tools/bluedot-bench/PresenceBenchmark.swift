import BlueDotCore
import Formats
import Foundation
import LocationBus
import Positioning

/// `bluedot-bench presence FIXES VENUE [--away-timeout S] [--away-timeout-inside S] [--trace SUFFIX]`: the presence
/// rule again, over fixes already made (location JSONL: what `bluedot replay` writes, or the solver's feed that
/// `Tools/virtual-world/household.py --keep` keeps as `fixes.jsonl`). Each fix reaches a `LocationSource` with the
/// venue's `PresenceRule` at its own time on a manual clock, and the source's expiry runs once a second between
/// fixes, as the daemon's housekeeping does. Prints every `not_home` a target reads: when (the time since the first
/// fix, which on a household day is the time of day), after how long a silence, and the last current fix before it.
/// A change to the rule is so measured on a whole simulated day in seconds instead of a 24-minute run. `--trace`
/// prints every current fix of the targets whose id ends in SUFFIX with the rule's verdicts on it (at an exit when
/// walking / standing, inside another room, turning back).
enum PresenceBenchmark {
    static func run(_ arguments: [String]) throws {
        var paths: [String] = []
        var away = PresenceRule.defaultAwayAfterSeconds
        var awayInside = PresenceRule.defaultAwayAfterSecondsInside
        var trace: String?
        var i = 0
        while i < arguments.count {
            switch arguments[i] {
            case "--trace":
                guard i + 1 < arguments.count else { throw BenchError("--trace needs the end of a target id") }
                trace = arguments[i + 1]
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
        let rule = PresenceRule(venue: venue, awayAfterSeconds: away, awayAfterSecondsInside: awayInside)
        guard let start = fixes.first?.timestamp else { throw BenchError("\(paths[0]) has no fixes") }
        let clock = ManualClock(start: start)
        let source = LocationSource(id: "presence", deleteAfterSeconds: 3600, clock: clock, presence: rule)
        var lastCurrent: [String: Location] = [:]
        var events: [(t: Double, target: String, last: Location?)] = []
        var nextExpiry = start + 1
        func clockTime(_ t: Double) -> String {
            let s = Int((t - start).rounded(.down))
            return String(format: "%02d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
        }
        func expire(until t: Double) {
            while nextExpiry <= t {
                clock.advance(by: nextExpiry - clock.now())
                let before = source.locations.filter { $0.value.presence == .home }.keys
                source.expireStale()
                for target in before where source.locations[target]?.presence == .notHome {
                    events.append((nextExpiry, target, lastCurrent[target]))
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
            if let trace, fix.targetID.hasSuffix(trace), !fix.lastKnown {
                print("    \(clockTime(fix.timestamp)) (\(format(fix.x)), \(format(fix.y))) "
                      + "±\(format(fix.horizontalAccuracyMeters)) m, \(format(fix.speedMetersPerSecond ?? 0)) m/s, "
                      + "room \(fix.room ?? "none"): exit \(rule.isAtExit(fix, walking: true))/\(rule.isAtExit(fix)), "
                      + "inside \(rule.isInside(fix)), turning back \(rule.isTurningBack(fix))")
            }
        }
        // Up to the last fix: what came after it is not in the file, and every target would seem to fall silent.
        expire(until: fixes.last?.timestamp ?? start)
        print("presence over \(fixes.count) fixes, \(Set(fixes.map(\.targetID)).count) targets, "
              + "\(format((fixes.last!.timestamp - start) / 3600)) h; exits \(rule.exitRooms); "
              + "away-timeout \(Int(away)) s, inside \(Int(awayInside)) s")
        for event in events {
            guard let last = event.last else {
                print("  \(clockTime(event.t)) \(event.target): not_home, never heard")
                continue
            }
            let silent = event.t - last.timestamp
            let began = abs(silent - away) <= abs(silent - awayInside) ? "at an exit" : "inside"
            print("  \(clockTime(event.t)) \(event.target): not_home after \(format(silent)) s silent "
                  + "(began \(began)); last current fix \(clockTime(last.timestamp)) "
                  + "at (\(format(last.x)), \(format(last.y))) ±\(format(last.horizontalAccuracyMeters)) m, "
                  + "room \(last.room ?? "none")")
        }
        print("not_home events: \(events.count)")
    }

    private static func format(_ v: Double) -> String { String(format: "%.2f", v) }
}
