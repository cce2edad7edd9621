import BlueDotCore
import Formats
import Foundation
import Positioning

/// `bluedot-bench rooms [DATA_DIR] [--rooms DIR] [enter=P] [leave=P] [dwell=S] [still-enter=P] [still-leave=P]
/// [still-dwell=S] [still-confirm=P] [lag=S] [--ignore-stillness]`: how well the engine's room state matches the truth on the visible sets, with
/// rooms drawn on each venue (`Tools/rooms`), and how often a static target flaps between rooms.
/// `--ignore-stillness` applies the moving rules to a target standing still too (the engine before it held them);
/// `lag=S` decides rooms S seconds behind each fix (`EngineConfiguration.roomLagSeconds`, default 3).
///
/// Each set is calibrated on its survey as `bluedot-bench accuracy` does, replayed with the drawn rooms, and scored
/// like the accuracy table (the latest fix at or before each truth point): **agreement** is the share of truth points
/// whose fix names the room the truth is in (no room counts as a room); a room decided `lag` seconds behind its fix is
/// compared with the truth of that moment. **Flaps per minute** count room changes of a
/// target while it stands still: WUT's robot pauses (truth moving less than 0.2 m over 10 s or more) and UJI's
/// surveyed points, whose 13 consecutive one-second scans per point and pass are replayed back to back as one static
/// target (a scan every 1.1 s, each scan's packets keeping their spacing). Every figure is given with the engine's
/// default hysteresis and with none (the most likely room at every fix), so the table shows what hysteresis buys.
enum RoomsBenchmark {
    struct Row {
        var set: String
        var agreement: Double, agreementPlain: Double
        var scored: Int
        var staticMinutes: Double
        var flaps: Int, flapsPlain: Int
        /// Seconds from each true room change to the first fix in the new room (median), and how many changes the
        /// fixes followed within `followSeconds` of the `changes` the truth made.
        var delay: Double, followed: Int, changes: Int
    }

    /// A true room change not followed within this many seconds is counted as missed.
    static let followSeconds = 30.0

    static func run(_ arguments: [String]) throws {
        var directory = "../shared/data"
        var roomsDirectory = "Tools/rooms"
        var rules = RoomHysteresis()
        var lag = EngineConfiguration.moving.roomLagSeconds
        var i = 0
        while i < arguments.count {
            let pair = arguments[i].split(separator: "=").map(String.init)
            if pair.count == 2, let v = Double(pair[1]) {
                // `enter=`, `leave=`, `dwell=`: hysteresis other than the engine's default (for tuning).
                switch pair[0] {
                case "enter": rules.enterProbability = v
                case "leave": rules.leaveProbability = v
                case "dwell": rules.dwellSeconds = v
                case "still-enter": rules.stationaryEnterProbability = v
                case "still-leave": rules.stationaryLeaveProbability = v
                case "still-dwell": rules.stationaryDwellSeconds = v
                case "still-confirm": rules.stillConfirmProbability = v
                case "lag": lag = v
                default: throw BenchError("unknown key \(pair[0])")
                }
                i += 1
                continue
            }
            if arguments[i] == "--ignore-stillness" {
                rules.stationaryEnterProbability = rules.enterProbability
                rules.stationaryLeaveProbability = rules.leaveProbability
                rules.stationaryDwellSeconds = rules.dwellSeconds
                i += 1
                continue
            }
            if arguments[i] == "--rooms", i + 1 < arguments.count {
                roomsDirectory = arguments[i + 1]
                i += 2
                continue
            }
            directory = arguments[i]
            i += 1
        }
        let drawn = try loadRooms(roomsDirectory)
        print("set                          agreement (none)   scored  static min  flaps/min (none)  change delay s (followed)")
        for set in try AccuracyHarness.loadSets(directory) {
            guard let rooms = drawn.first(where: { set.venue.hasSuffix("/" + $0.key) })?.value else {
                print("\(set.name): no rooms drawn for \(set.venue)")
                continue
            }
            var venue = try VenueLoader.load(path: set.venue)
            venue.rooms = rooms
            var configuration = set.isStatic ? EngineConfiguration.stationary : EngineConfiguration.moving
            configuration.roomHysteresis = rules
            configuration.roomLagSeconds = lag
            let calibrated = try AccuracyHarness.calibrate(venue: venue, surveys: set.calibration,
                                                           into: &configuration)
            let row = try measure(set: set, venue: calibrated.venue, configuration: configuration)
            print(String(format: "%@ %6.1f%% (%5.1f%%)  %6d  %9.1f  %6.2f (%6.2f)  %6.1f (%d/%d)",
                         set.name.padding(toLength: 28, withPad: " ", startingAt: 0), 100 * row.agreement,
                         100 * row.agreementPlain, row.scored, row.staticMinutes,
                         row.staticMinutes > 0 ? Double(row.flaps) / row.staticMinutes : .nan,
                         row.staticMinutes > 0 ? Double(row.flapsPlain) / row.staticMinutes : .nan,
                         row.delay, row.followed, row.changes))
        }
    }

    /// The rooms files: venue path (relative to the data folder) → rooms.
    static func loadRooms(_ directory: String) throws -> [String: [Venue.Room]] {
        var result: [String: [Venue.Room]] = [:]
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".rooms.json") }
        for file in files.sorted() {
            let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file))
            guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let venue = root["venue"] as? String, let rooms = root["rooms"] as? [[String: Any]] else {
                throw BenchError("\(file): expected {\"venue\": path, \"rooms\": [...]}")
            }
            result[venue] = try rooms.enumerated().map { index, room in
                guard let id = room["id"] as? String, let ring = room["polygon"] as? [[Double]], ring.count >= 3 else {
                    throw BenchError("\(file): rooms[\(index)]: needs an id and a polygon of [x, y] points")
                }
                return Venue.Room(id: id, name: room["name"] as? String, floor: room["floor"] as? Int ?? 0,
                                  polygon: ring.map { Venue.PlanPoint(x: $0[0], y: $0[1]) })
            }
        }
        return result
    }

    static func measure(set: AccuracyHarness.DataSet, venue: Venue, configuration: EngineConfiguration) throws -> Row {
        var observations: [Observation] = []
        var reader = try ObservationReader(path: set.observations,
                                           options: .init(knownAnchors: Set(venue.anchors.map(\.id))))
        while let line = try reader.next() { observations.append(line.observation) }
        var truth = try TruthReader.read(path: set.truth)
        var statics: [(target: String, from: Double, to: Double)]
        if set.isStatic {
            (observations, truth, statics) = pointsAsStaticTargets(observations, truth)
        } else {
            statics = pauses(truth)
        }
        let map = RoomMap(rooms: venue.rooms)
        func replay(_ rules: RoomHysteresis) -> (agreement: Double, scored: Int, flaps: Int, fixes: [Location]) {
            var c = configuration
            c.roomHysteresis = rules
            var engine = PositioningEngine(venue: venue, configuration: c)
            var fixes: [Location] = []
            for o in observations { engine.ingest(o, into: &fixes) }
            engine.finish(into: &fixes)
            // A room decided `roomLagSeconds` behind its fix describes that moment: it is scored against the truth
            // of then (the change delays below are as a user sees them, the lag included).
            let described = c.roomLagSeconds > 0
                ? fixes.map { fix -> Location in
                    var f = fix
                    f.timestamp -= c.roomLagSeconds
                    return f
                } : fixes
            let scored = Evaluator.score(fixes: described, truth: truth, scoring: set.isStatic ? .stationary : .movingDefault)
            let agree = scored.filter { p in
                let truthRoom = map.room(x: p.truth.x, y: p.truth.y, floor: nil).map { map.shapes[$0].id }
                return p.fix.room == truthRoom
            }.count
            var byTarget: [String: [Location]] = [:]
            for fix in fixes { byTarget[fix.targetID, default: []].append(fix) }
            var flaps = 0
            for window in statics {
                let inside = (byTarget[window.target] ?? []).filter { $0.timestamp >= window.from && $0.timestamp <= window.to }
                for (a, b) in zip(inside, inside.dropFirst()) where a.room != b.room { flaps += 1 }
            }
            return (scored.isEmpty ? .nan : Double(agree) / Double(scored.count), scored.count, flaps, fixes)
        }
        let held = replay(configuration.roomHysteresis)
        let plain = replay(.none)
        let minutes = statics.reduce(0) { $0 + ($1.to - $1.from) } / 60
        let (delay, followed, changes) = changeDelays(truth: truth, fixes: held.fixes, map: map)
        return Row(set: set.name, agreement: held.agreement, agreementPlain: plain.agreement, scored: held.scored,
                   staticMinutes: minutes, flaps: held.flaps, flapsPlain: plain.flaps, delay: delay,
                   followed: followed, changes: changes)
    }

    /// The delay of each true room change: consecutive truth points of a target in different rooms (no room counts)
    /// make a change at the later point's time; its delay runs to the first fix at or after it that names the new
    /// room, if that comes within `followSeconds` and before the truth moves on. Returns the median delay, how many
    /// changes were followed, and how many there were.
    static func changeDelays(truth: [TruthPoint], fixes: [Location], map: RoomMap) -> (Double, Int, Int) {
        func room(_ x: Double, _ y: Double) -> String? { map.room(x: x, y: y, floor: nil).map { map.shapes[$0].id } }
        let fixesByTarget = Dictionary(grouping: fixes, by: \.targetID)
        var delays: [Double] = []
        var changes = 0
        for (target, points) in Dictionary(grouping: truth, by: \.target) {
            let sorted = points.sorted { $0.t < $1.t }
            let track = (fixesByTarget[target] ?? []).sorted { $0.timestamp < $1.timestamp }
            for k in sorted.indices.dropFirst() {
                let to = room(sorted[k].x, sorted[k].y)
                guard to != room(sorted[k - 1].x, sorted[k - 1].y) else { continue }
                changes += 1
                let next = sorted[(k + 1)...].first { room($0.x, $0.y) != to }?.t ?? .infinity
                let end = min(sorted[k].t + followSeconds, next)
                if let hit = track.first(where: { $0.timestamp >= sorted[k].t && $0.timestamp <= end && $0.room == to }) {
                    delays.append(hit.timestamp - sorted[k].t)
                }
            }
        }
        delays.sort()
        return (delays.isEmpty ? .nan : delays[delays.count / 2], delays.count, changes)
    }

    /// Where the truth stands still: spans of 10 s or more within which it stays within 0.2 m of the span's
    /// first point (a target's truth is its own).
    static func pauses(_ truth: [TruthPoint]) -> [(target: String, from: Double, to: Double)] {
        var result: [(String, Double, Double)] = []
        let byTarget = Dictionary(grouping: truth, by: \.target)
        for (target, points) in byTarget.sorted(by: { $0.key < $1.key }) {
            let sorted = points.sorted { $0.t < $1.t }
            var start = 0
            for k in 1...sorted.count {
                let moved = k < sorted.count
                    && hypot(sorted[k].x - sorted[start].x, sorted[k].y - sorted[start].y) <= 0.2
                    && sorted[k].t - sorted[k - 1].t < 5
                if moved { continue }
                if sorted[k - 1].t - sorted[start].t >= 10 { result.append((target, sorted[start].t, sorted[k - 1].t)) }
                start = k
            }
        }
        return result
    }

    /// UJI's scans (one target per scan, 100 s apart) regrouped: consecutive scans at the same surveyed point
    /// become one target, `point-<first scan>`, its scans 1.1 s apart. Returns the observations in time order, one
    /// truth point per scan (at its last packet, as the dataset's), and each group's span.
    static func pointsAsStaticTargets(_ observations: [Observation], _ truth: [TruthPoint])
        -> ([Observation], [TruthPoint], [(target: String, from: Double, to: Double)]) {
        let scans = truth.sorted { $0.t < $1.t }
        var group: [String: (target: String, index: Int, base: Double)] = [:]
        var spans: [(target: String, from: Double, to: Double)] = []
        var newTruth: [TruthPoint] = []
        var previous: TruthPoint?
        var index = 0
        var current = ""
        for scan in scans {
            if let p = previous, p.x == scan.x, p.y == scan.y {
                index += 1
            } else {
                index = 0
                current = "point-" + scan.target
            }
            previous = scan
            // Scan k of a group starts at k × 1.1 s after the group's own origin (its first scan's time).
            let origin = group.values.first { $0.target == current }?.base ?? (scan.t - scan.t.truncatingRemainder(dividingBy: 100))
            group[scan.target] = (current, index, origin)
        }
        var firstPacket: [String: Double] = [:]
        for o in observations where firstPacket[o.target] == nil { firstPacket[o.target] = o.t }
        var moved: [Observation] = []
        for o in observations {
            guard let g = group[o.target], let first = firstPacket[o.target] else { continue }
            var copy = o
            copy.target = g.target
            copy.t = g.base + Double(g.index) * 1.1 + (o.t - first)
            moved.append(copy)
        }
        moved.sort { $0.t < $1.t }
        var lastOfScan: [String: Double] = [:]
        for o in observations {
            guard let g = group[o.target], let first = firstPacket[o.target] else { continue }
            lastOfScan[o.target] = max(lastOfScan[o.target] ?? -.infinity, g.base + Double(g.index) * 1.1 + (o.t - first))
        }
        for scan in scans {
            guard let g = group[scan.target], let t = lastOfScan[scan.target] else { continue }
            newTruth.append(TruthPoint(t: t, target: g.target, x: scan.x, y: scan.y, z: scan.z))
        }
        newTruth.sort { $0.t < $1.t }
        for (target, points) in Dictionary(grouping: newTruth, by: \.target) {
            if let from = points.map(\.t).min(), let to = points.map(\.t).max(), to > from { spans.append((target, from, to)) }
        }
        spans.sort { $0.from < $1.from }
        return (moved, newTruth, spans)
    }
}
