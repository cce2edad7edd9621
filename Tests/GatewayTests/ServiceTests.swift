import Foundation
import Testing

/// `bluedot run` as a service: start, query the API, SIGTERM, exit code 0 within a few seconds, and a live
/// scan's `--record` file decodes. Uses the built binary; the live scan needs the Bumble virtual world.
/// The suites that start processes (the daemon, Bumble's world, chromium), one test at a time: on two shared
/// cores, running them side by side would starve the other suites' timing-sensitive tests.
@Suite(.serialized) struct GatewayProcessTests {}

extension GatewayProcessTests {
    @Suite struct ServiceTests {
        static let demo = GatewayProcess.packageRoot.appendingPathComponent("Sources/Gateway/Demo").path

        /// Two inputs at once: an observation file of a tag and a simulated walk of `self` through the same venue,
        /// one engine, both targets on the API.
        @Test func inputsCombineIntoOneEngine() async throws {
            let scratch = try GatewayProcess.scratch()
            let track = scratch.appendingPathComponent("walk.truth.jsonl").path
            try (0...20).map { "{\"t\": \($0), \"target\": \"self\", \"x\": \(5 + Double($0) * 0.5), \"y\": 8.0}" }
                .joined(separator: "\n").write(toFile: track, atomically: true, encoding: .utf8)
            let gateway = try GatewayProcess(GatewayProcess.bluedot, [
                "run", "--observations", Self.demo + "/boun-straight_01.observations.jsonl", "--simulate", track,
                "--venue", Self.demo + "/demo-lab.venue.json", "--mode", "tag", "--listen", "127.0.0.1:0",
                "--speed", "4",
            ])
            let base = try #require(await gateway.waitForURL(seconds: 30), "no listening line: \(gateway.standardError)")
            var locations = ""
            for _ in 0..<150 where !(locations.contains("e78f135624ce") && locations.contains("\"self\"")) {
                try await Task.sleep(for: .milliseconds(100))
                locations = try await GatewayProcess.get(base + "api/locations").1
            }
            #expect(locations.contains("\"target\": \"e78f135624ce\"") && locations.contains("\"target\": \"self\""),
                    "\(locations)")
            let health = try await GatewayProcess.get(base + "api/health").1
            #expect(health.contains("observations:") && health.contains(" + simulate:"), "\(health)")
            gateway.signal(SIGTERM)
            #expect(await gateway.wait(seconds: 6))
            #expect(gateway.status == 0, "\(gateway.standardError.suffix(2000))")
        }

        @Test func runServesTheAPIAndStopsOnSIGTERM() async throws {
            let gateway = try GatewayProcess(GatewayProcess.bluedot, [
                "run", "--observations", Self.demo + "/boun-straight_01.observations.jsonl",
                "--venue", Self.demo + "/demo-lab.venue.json", "--listen", "127.0.0.1:0", "--speed", "4",
            ])
            let base = try #require(await gateway.waitForURL(seconds: 30), "no listening line: \(gateway.standardError)")
            let (status, health) = try await GatewayProcess.get(base + "api/health")
            #expect(status == 200)
            #expect(health.contains("\"status\":\"ok\""))
            var locations = ""
            for _ in 0..<100 where !locations.contains("e78f135624ce") {
                try await Task.sleep(for: .milliseconds(100))
                locations = try await GatewayProcess.get(base + "api/locations").1
            }
            #expect(locations.contains("\"target\": \"e78f135624ce\""))
            let metrics = try await GatewayProcess.get(base + "metrics").1
            #expect(metrics.contains("bluedot_targets_tracked 1.0"))
            #expect(!metrics.contains("bluedot_fixes_total 0\n"))
            #expect(try await GatewayProcess.get(base + "api/locations?floor=x").0 == 400)
            // A browser holding the feed open must not hold the shutdown up.
            let feed = try GatewayProcess("/usr/bin/env", ["curl", "-sN", "--max-time", "20", base + "api/feed"])
            var subscribed = false
            for _ in 0..<100 where !subscribed {  // until the gateway counts the feed client (not a fixed pause)
                try await Task.sleep(for: .milliseconds(100))
                subscribed = try await GatewayProcess.get(base + "api/health").1.contains("\"subscribers\":1")
            }
            #expect(subscribed, "the feed client connected")
            let started = Date()
            gateway.signal(SIGTERM)
            #expect(await gateway.wait(seconds: 6), "still running 6 s after SIGTERM")
            #expect(Date().timeIntervalSince(started) < 5)
            #expect(gateway.status == 0, "\(gateway.standardError.suffix(2000))")
            #expect(await feed.wait(seconds: 5), "the feed connection was closed")
            #expect(feed.standardOutput.contains("event: fix"))
        }

        @Test func badConfigurationStopsStartUpWithFileAndLine() async throws {
            let scratch = try GatewayProcess.scratch()
            let config = scratch.appendingPathComponent("gw.conf").path
            try "observations = o.jsonl\nvenue = v.json\nlisten = 127.0.0.1:8080\ncolour = blue\n"
                .write(toFile: config, atomically: true, encoding: .utf8)
            let run = try GatewayProcess(GatewayProcess.bluedot, ["run", "--config", config])
            #expect(await run.wait(seconds: 20))
            #expect(run.status == 2)
            #expect(run.standardError == "bluedot run: \(config):4: unknown key \"colour\"\n")
            let open = try GatewayProcess(GatewayProcess.bluedot, [
                "run", "--observations", "o.jsonl", "--venue", "v.json", "--listen", "0.0.0.0:8080",
            ])
            #expect(await open.wait(seconds: 20))
            #expect(open.standardError.contains("0.0.0.0:8080 is reachable from other machines: set a token, or insecure = true"))
            // Files combine with each other and with one controller; two controllers do not.
            let two = try GatewayProcess(GatewayProcess.bluedot, [
                "run", "--hci", "hci0", "--h4-tcp", "127.0.0.1:1", "--venue", "v.json",
            ])
            #expect(await two.wait(seconds: 20))
            #expect(two.standardError.contains("give only one of --hci, --h4-tcp, --h4-tty"), "\(two.standardError)")
        }

        /// A registry with a bad IRK, a duplicate id or an unknown field stops every role's start-up, naming the file
        /// and the field.
        @Test func aBadDeviceRegistryStopsStartUpWithFileAndField() async throws {
            let scratch = try GatewayProcess.scratch()
            let venue = GatewayProcess.packageRoot.appendingPathComponent("Sources/Gateway/Demo/demo-lab.venue.json").path
            let cases: [(String, String)] = [
                (#"{"devices": [{"id": "a", "irk": "ec0234a357c8ad05341010a60a397d9"}]}"#,
                 "devices.json: devices[0].irk: expected 32 hex digits"),
                (#"{"devices": [{"id": "a"}, {"id": "a"}]}"#, #"devices.json: devices[1].id: duplicate id "a""#),
                (#"{"devices": [{"id": "a", "colour": "blue"}]}"#, "devices.json: devices[0].colour: unknown field"),
            ]
            let registry = scratch.appendingPathComponent("devices.json").path
            for (text, expected) in cases {
                try text.write(toFile: registry, atomically: true, encoding: .utf8)
                for role in [
                    ["--simulate", "t.jsonl", "--venue", venue, "--listen", "127.0.0.1:0"],
                    ["--h4-tcp", "127.0.0.1:1", "--publish", "mqtt://127.0.0.1:1", "--site", "s", "--receiver", "rx-1"],
                ] {
                    let run = try GatewayProcess(GatewayProcess.bluedot, ["run", "--devices", registry] + role)
                    #expect(await run.wait(seconds: 20))
                    #expect(run.status == 2 && run.standardError.contains(expected), "\(role): \(run.standardError)")
                }
            }
        }

        @Test func liveScanIsRecordedAndTheRecordingDecodes() async throws {
            if let missing = await GatewayProcess.pythonMissing(["bumble"]) {
                if GatewayProcess.required { Issue.record("BLUEDOT_REQUIRE_INTEGRATION=1 but \(missing)") }
                return
            }
            let root = GatewayProcess.packageRoot.appendingPathComponent("Tools/virtual-world").path
            let world = try GatewayProcess(GatewayProcess.python, [
                root + "/world.py", "--config", root + "/beacons.json", "--features", "extended", "--noise", "0",
                "--port", "0",
            ])
            var ready: [String: Any]?
            for _ in 0..<300 where ready == nil {
                try await Task.sleep(for: .milliseconds(100))
                ready = world.standardOutput.split(separator: "\n").lazy
                    .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                    .first { $0["ready"] != nil }
            }
            let port = try #require((ready?["port"] as? NSNumber)?.intValue, "world not ready: \(world.standardError)")
            let ids = try #require(ready?["beacons"] as? [String])
            // A venue whose anchors are the world's beacons, at the world file's positions.
            let beacons = try #require(
                (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root + "/beacons.json")))
                    as? [String: Any])?["beacons"] as? [[String: Any]])
            let anchors = zip(ids, beacons).map { id, b in
                "{\"id\": \"\(id)\", \"x\": \(b["x"]!), \"y\": \(b["y"]!), \"z\": \(b["z"]!)}"
            }
            let scratch = try GatewayProcess.scratch()
            let venue = scratch.appendingPathComponent("world.venue.json").path
            try "{\"name\": \"world\", \"anchors\": [\(anchors.joined(separator: ", "))]}"
                .write(toFile: venue, atomically: true, encoding: .utf8)
            let recording = scratch.appendingPathComponent("scan.btsnoop").path
            let gateway = try GatewayProcess(GatewayProcess.bluedot, [
                "run", "--h4-tcp", "127.0.0.1:\(port)", "--venue", venue, "--record", recording, "--listen", "127.0.0.1:0",
            ])
            let base = try #require(await gateway.waitForURL(seconds: 30), "no listening line: \(gateway.standardError)")
            var locations = ""
            for _ in 0..<150 where !locations.contains("\"self\"") {
                try await Task.sleep(for: .milliseconds(100))
                locations = try await GatewayProcess.get(base + "api/locations").1
            }
            #expect(locations.contains("\"target\": \"self\""), "\(gateway.standardError.suffix(2000))")
            // A few advertising intervals of every beacon: wait until the gateway has taken in 40 reports.
            var reports = 0
            for _ in 0..<300 where reports < 40 {
                try await Task.sleep(for: .milliseconds(100))
                let metrics = try await GatewayProcess.get(base + "metrics").1
                reports = metrics.split(separator: "\n").first { $0.hasPrefix("bluedot_advertising_reports_total ") }
                    .flatMap { Int($0.split(separator: " ")[1]) } ?? 0
            }
            #expect(reports >= 40)
            gateway.signal(SIGTERM)
            #expect(await gateway.wait(seconds: 6), "still running 6 s after SIGTERM")
            #expect(gateway.status == 0, "\(gateway.standardError.suffix(2000))")
            world.signal(SIGTERM)
            let decode = try GatewayProcess(GatewayProcess.bluedot, ["decode", recording])
            #expect(await decode.wait(seconds: 30))
            #expect(decode.status == 0, "\(decode.standardError)")
            let lines = decode.standardOutput.split(separator: "\n")
            #expect(lines.count >= 20, "five beacons at 100-500 ms for over 2 s")
            for id in ids where !id.hasPrefix("mac:") { #expect(lines.contains { $0.contains(id) }, "\(id)") }
        }
    }
}
