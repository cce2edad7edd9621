import BlueDotCore
import Formats
import Foundation
import JSON
import Logging
import Positioning
import Testing

@testable import Site

/// A whole site as processes: the Bumble virtual site (Tools/virtual-world/site.py: four controllers standing as
/// receivers, two tags walking), four `bluedot run --h4-tcp ... --publish` receivers, a real mosquitto and one
/// `bluedot run --mqtt ... --mode tag` solver. As root (CI) every receiver runs in a network namespace of its
/// own, a separate host reaching the broker and its controller over a veth link. The solved tracks are scored
/// against the virtual truth; then the broker is killed and restarted, and a receiver is killed.
@Suite(.serialized, .enabled(if: MosquittoBroker.available && IntegrationEnvironment.runWorldTests,
                             "needs mosquitto and the virtual world"))
struct SiteProcessTests {
    static let siteScript = IntegrationEnvironment.packageRoot.appendingPathComponent("Tools/virtual-world/site.py").path
    static let siteConfig = IntegrationEnvironment.packageRoot.appendingPathComponent("Tools/virtual-world/site.json").path

    /// Network namespaces, one per receiver, each with a veth link 10.77.<k>.2 -> 10.77.<k>.1 (the root side).
    final class Namespaces {
        let names: [String]
        init(count: Int) throws {
            names = (1...count).map { "bdsite\($0)" }
            for (i, name) in names.enumerated() {
                let k = i + 1
                for command in [
                    ["netns", "del", name], ["link", "del", "bdh\(k)"],
                ] { _ = try? ChildProcess.run("/usr/sbin/ip", command, timeout: .seconds(5)) }
                for command in [
                    ["netns", "add", name], ["link", "add", "bdh\(k)", "type", "veth", "peer", "name", "bdn\(k)"],
                    ["link", "set", "bdn\(k)", "netns", name], ["addr", "add", "10.77.\(k).1/24", "dev", "bdh\(k)"],
                    ["link", "set", "bdh\(k)", "up"],
                    ["netns", "exec", name, "ip", "addr", "add", "10.77.\(k).2/24", "dev", "bdn\(k)"],
                    ["netns", "exec", name, "ip", "link", "set", "bdn\(k)", "up"],
                    ["netns", "exec", name, "ip", "link", "set", "lo", "up"],
                ] {
                    let result = try ChildProcess.run("/usr/sbin/ip", command, timeout: .seconds(10))
                    guard result.status == 0 else {
                        throw BrokerError("ip \(command.joined(separator: " ")): \(result.standardError)")
                    }
                }
            }
        }

        func remove() {
            for (i, name) in names.enumerated() {
                _ = try? ChildProcess.run("/usr/sbin/ip", ["netns", "del", name], timeout: .seconds(5))
                _ = try? ChildProcess.run("/usr/sbin/ip", ["link", "del", "bdh\(i + 1)"], timeout: .seconds(5))
            }
        }
    }

    /// Namespaces when this runs as root with iproute2; loopback otherwise.
    static var useNamespaces: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip")
            && ProcessInfo.processInfo.environment["BLUEDOT_SITE_LOOPBACK"] == nil
    }

    struct Truth {
        var byTarget: [String: [(t: Double, x: Double, y: Double)]] = [:]

        init(path: String) throws {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            for line in text.split(separator: "\n") {
                guard case .object(let o)? = try? JSONValue.parse(Array(line.utf8)),
                      case .number(let t)? = o["t"], case .string(let target)? = o["target"],
                      case .number(let x)? = o["x"], case .number(let y)? = o["y"] else { continue }
                byTarget[target, default: []].append((t, x, y))
            }
        }

        /// The true position of `target` at `t`, interpolated.
        func position(_ target: String, at t: Double) -> (x: Double, y: Double)? {
            guard let points = byTarget[target], let after = points.firstIndex(where: { $0.t >= t }), after > 0 else {
                return nil
            }
            let a = points[after - 1], b = points[after]
            let f = b.t > a.t ? (t - a.t) / (b.t - a.t) : 0
            return (a.x + f * (b.x - a.x), a.y + f * (b.y - a.y))
        }
    }

    @Test func aVirtualSiteIsSolvedAndSurvivesABrokerRestartAndALostReceiver() async throws {
        let scratch = try IntegrationEnvironment.scratchDirectory()
        let namespaces = Self.useNamespaces ? try Namespaces(count: 4) : nil
        defer { namespaces?.remove() }
        let bind = namespaces == nil ? "127.0.0.1" : "0.0.0.0"
        let broker = try await MosquittoBroker(host: bind)
        let venuePath = scratch.appendingPathComponent("site.venue.json").path
        let truthPath = scratch.appendingPathComponent("truth.jsonl").path
        let world = try ChildProcess(IntegrationEnvironment.python, [
            Self.siteScript, "--config", Self.siteConfig, "--host", bind, "--truth", truthPath, "--venue", venuePath,
            "--noise", "2", "--seed", "5",
        ])
        defer { world.kill() }
        let ready = try #require(await world.readyObject(timeout: .seconds(60)),
                                 "site.py did not get ready: \(world.standardError.suffix(2000))")
        let ports = try #require(ready["receivers"] as? [String: [String: Any]])
        let tags = try #require(ready["tags"] as? [String])
        #expect(ports.count == 4 && tags.count == 2)

        // Four receivers, each (as root) on a host of its own.
        var receivers: [String: ChildProcess] = [:]
        func startReceiver(_ id: String, index k: Int) throws -> ChildProcess {
            let port = try #require(ports[id]?["port"] as? Int)
            let host = namespaces == nil ? "127.0.0.1" : "10.77.\(k).1"
            let arguments = [
                "run", "--h4-tcp", "\(host):\(port)", "--publish", "mqtt://\(host):\(broker.port)", "--site", "vs",
                "--receiver", id, "--log-level", "info",
            ]
            if let namespaces {
                return try ChildProcess("/usr/sbin/ip", ["netns", "exec", namespaces.names[k - 1],
                                                         IntegrationEnvironment.bluedot] + arguments)
            }
            return try ChildProcess(IntegrationEnvironment.bluedot, arguments)
        }
        for (k, id) in ["rx-1", "rx-2", "rx-3", "rx-4"].enumerated() { receivers[id] = try startReceiver(id, index: k + 1) }
        defer { for r in receivers.values { r.kill() } }

        func startSolver() async throws -> (ChildProcess, String) {
            let solver = try ChildProcess(IntegrationEnvironment.bluedot, [
                "run", "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--site", "vs", "--venue", venuePath, "--mode", "tag",
                "--listen", "127.0.0.1:0", "--log-level", "info",
            ])
            let base = await solver.listeningBase(timeout: .seconds(30)) ?? ""
            #expect(!base.isEmpty, "solver did not listen: \(solver.standardError.suffix(2000))")
            return (solver, base)
        }
        var (solver, base) = try await startSolver()
        defer { solver.kill() }

        // Watch the published locations.
        var options = try MQTTOptions(url: "mqtt://127.0.0.1:\(broker.port)")
        options.clientID = "site-watcher"
        options.reconnectLargestDelaySeconds = 1
        let watcher = try MQTTClient(options: options, logger: Logger(label: "test.watcher"))
        try watcher.subscribe("bluedot/vs/locations/+")
        try watcher.subscribe("bluedot/vs/receivers/+/status")
        try watcher.subscribe("bluedot/vs/status")
        try watcher.start()
        let fixes = LockedValue<[(arrived: Double, fix: Location)]>([])
        let statuses = LockedValue<[String: String]>([:])
        let watching = Task.detached {
            for await case .message(let m) in watcher.events {
                if m.topic == "bluedot/vs/status" {
                    statuses.withLock { $0["solver"] = String(decoding: m.payload, as: UTF8.self) }
                } else if m.topic.hasSuffix("/status") {
                    let id = m.topic.split(separator: "/")[3]
                    statuses.withLock { $0[String(id)] = String(decoding: m.payload, as: UTF8.self) }
                } else if let fix = try? LocationReader.read(source: MemoryChunkSource(m.payload), name: m.topic).first {
                    fixes.withLock { $0.append((SystemClock().now(), fix)) }
                }
            }
        }
        defer { watching.cancel(); watcher.stop() }

        // 25 s of walking, then the score.
        #expect(await eventually(seconds: 30) { statuses.value.count == 5 && statuses.value.values.allSatisfy { $0 == "online" } })
        try await Task.sleep(for: .seconds(25))
        let truth = try Truth(path: truthPath)
        var errors: [Double] = []
        for (_, fix) in fixes.value where !fix.lastKnown && fix.timestamp > (fixes.value.first?.fix.timestamp ?? 0) + 3 {
            guard let p = truth.position(fix.targetID, at: fix.timestamp) else { continue }
            errors.append(((fix.x - p.x) * (fix.x - p.x) + (fix.y - p.y) * (fix.y - p.y)).squareRoot())
        }
        errors.sort()
        let median = errors.isEmpty ? .infinity : errors[errors.count / 2]
        let p90 = errors.isEmpty ? .infinity : errors[errors.count * 9 / 10]
        print("virtual site (\(namespaces == nil ? "loopback" : "4 network namespaces")): \(errors.count) fixes, median error \(median) m, p90 \(p90) m")
        #expect(errors.count >= 30, "fixes of both tags for 20 s")
        #expect(Set(fixes.value.map(\.fix.targetID)) == Set(tags))
        #expect(median < 1.5 && p90 < 3.0, "the solved tracks follow the virtual truth")
        let api = try receiversDocument(base)
        #expect(api.contains("\"clockOffset\":") && api.contains("\"online\":true"))
        #expect(api.contains(#""telemetry":{"receiver":"#), "receivers' telemetry (every 10 s) reached the solver")
        // The solver's /metrics, read by Prometheus's own Python client parser (Tools/metrics-check/check.py).
        let checker = IntegrationEnvironment.packageRoot.appendingPathComponent("Tools/metrics-check/check.py").path
        let metrics = try ChildProcess.run(IntegrationEnvironment.python, [checker, base + "metrics"],
                                           timeout: .seconds(60))
        #expect(metrics.status == 0, "the exposition: \(metrics.standardError.suffix(2000))")
        var families: Set<String> = []
        if case .object(let o)? = try? JSONValue.parse(Array(metrics.standardOutput.utf8)) { families = Set(o.keys) }
        for family in ["bluedot_fixes", "bluedot_advertising_reports", "bluedot_report_to_fix_latency_seconds",
                       "bluedot_targets_tracked", "bluedot_site_sightings", "bluedot_site_receiver_sightings",
                       "bluedot_site_locations_published"] {
            #expect(families.contains(family), "\(family) in \(families.sorted())")
        }

        // The solver keeps its venue on the broker, retained, for viewers of many sites.
        // (The venue file's lines are the message's lines.)
        let published = try broker.subscribe("bluedot/vs/venue", count: 1).joined(separator: "\n")
        let venueText = try String(contentsOfFile: venuePath, encoding: .utf8)
        let venueName = try #require(
            (try JSONSerialization.jsonObject(with: Data(venueText.utf8)) as? [String: Any])?["name"] as? String)
        #expect(published.hasPrefix("bluedot/vs/venue {"))
        #expect(published.contains(#""name": "\#(venueName)""#), "\(published)")

        // The broker is killed and restarted: receivers and solver are back within 5 s.
        broker.kill()
        let killedAt = SystemClock().now()
        try await Task.sleep(for: .seconds(1))
        try await broker.start()
        let restartedAt = SystemClock().now()
        #expect(await eventually(seconds: 10) { fixes.value.contains { $0.arrived > restartedAt + 0.5 && !$0.fix.lastKnown } },
                "fixes flow again")
        let resumed = (fixes.value.first { $0.arrived > restartedAt + 0.5 && !$0.fix.lastKnown }?.arrived ?? .infinity) - restartedAt
        print("broker down \(restartedAt - killedAt) s; first current fix \(resumed) s after it was back")
        #expect(resumed < 5)
        #expect(solver.isRunning && receivers.values.allSatisfy(\.isRunning), "no crash")
        // A broker that forgot the retained venue (no persistence) has it again from the solver's reconnect.
        #expect(try broker.subscribe("bluedot/vs/venue", count: 1).joined(separator: "\n") == published)

        // The solver killed and started again: back to current fixes of every tag, and to its accuracy, in seconds.
        solver.kill()
        let restartAt = SystemClock().now()
        #expect(await eventually(seconds: 5) { statuses.value["solver"] == "offline" }, "the solver's last will")
        (solver, base) = try await startSolver()
        func current(after t0: Double) -> [(arrived: Double, fix: Location)] {
            fixes.value.filter { $0.arrived > t0 && !$0.fix.lastKnown }
        }
        #expect(await eventually(seconds: 15) { Set(current(after: restartAt).map(\.fix.targetID)) == Set(tags) })
        let back = current(after: restartAt)
        let firstEach = Set(tags).compactMap { tag in back.first { $0.fix.targetID == tag }?.arrived }.max() ?? .infinity
        try await Task.sleep(for: .seconds(5))
        let laterTruth = try Truth(path: truthPath)
        var afterErrors: [Double] = []
        for (arrived, fix) in current(after: firstEach) where arrived <= firstEach + 5 {
            guard let p = laterTruth.position(fix.targetID, at: fix.timestamp) else { continue }
            afterErrors.append(((fix.x - p.x) * (fix.x - p.x) + (fix.y - p.y) * (fix.y - p.y)).squareRoot())
        }
        afterErrors.sort()
        let afterMedian = afterErrors.isEmpty ? .infinity : afterErrors[afterErrors.count / 2]
        print("solver restarted: every tag's first current fix \(firstEach - restartAt) s after the restart (process start included); median error over the next 5 s \(afterMedian) m (\(afterErrors.count) fixes)")
        #expect(firstEach - restartAt < 5)
        #expect(afterMedian < 1.5, "full accuracy at once: the engine needs no history beyond the grid interval")

        // A receiver killed: its last will says offline, on the broker and in the solver's API.
        receivers["rx-4"]?.kill()
        #expect(await eventually(seconds: 60) { statuses.value["rx-4"] == "offline" }, "last will within the keepalive")
        #expect(await eventually(seconds: 5) { (try? receiversDocument(base))?.contains(#""id":"rx-4","kind":"bluedot","known":true,"status":"offline","online":false"#) == true })
        // The map shows it: a real browser sees three anchors online and rx-4 offline, with rates in the tooltips.
        let chromedriver = IntegrationEnvironment.environment["BLUEDOT_CHROMEDRIVER"] ?? "/usr/bin/chromedriver"
        if FileManager.default.isExecutableFile(atPath: chromedriver) {
            let script = IntegrationEnvironment.packageRoot
                .appendingPathComponent("Tools/browser-test/receivers_test.py").path
            let browser = try ChildProcess.run(IntegrationEnvironment.python, [
                script, "--url", base, "--online", "3", "--offline", "1", "--chromedriver", chromedriver,
            ], timeout: .seconds(90))
            print("browser: \(browser.standardOutput)")
            #expect(browser.status == 0, "\(browser.standardOutput) \(browser.standardError.suffix(1000))")
        } else if IntegrationEnvironment.toolsRequired {
            Issue.record("BLUEDOT_REQUIRE_TOOLS=1 but there is no chromedriver at \(chromedriver)")
        }
        // The others still carry the tags.
        let before = fixes.value.count
        #expect(await eventually(seconds: 5) { fixes.value.count > before + 5 })

        // A clean stop: the solver says offline, receivers flush and say offline.
        solver.signal(SIGTERM)
        #expect(await solver.wait(timeout: .seconds(10)) && solver.result.status == 0)
        receivers["rx-1"]?.signal(SIGTERM)
        #expect(await receivers["rx-1"]!.wait(timeout: .seconds(10)))
        #expect(try broker.subscribe("bluedot/vs/status", count: 1) == ["bluedot/vs/status offline"])
        #expect(await eventually(seconds: 5) { statuses.value["rx-1"] == "offline" })
        let stoppedLog = receivers["rx-1"]!.standardError
        #expect(stoppedLog.contains("receiver stopped"), "\(stoppedLog.suffix(500))")
    }

    func receiversDocument(_ base: String) throws -> String {
        try ChildProcess.get(base + "api/receivers")
    }
}
