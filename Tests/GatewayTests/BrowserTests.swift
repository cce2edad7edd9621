import Foundation
import Testing

/// The real-browser check: `bluedot demo` on a free port, Debian's chromium driven by selenium
/// (Tools/browser-test/browser_test.py) loads the page, fitted to the venue before any fix, and the self dot's
/// marker moves over a few seconds; the info panel's source reads `beacons`; in navigation the map turns by the
/// display engine's navigation rotation and back to 0 after a drag; no request, the icon's included, is a 404.
/// The screenshots stay in `.build/screenshots/demo.png` and `.build/screenshots/navigation.png`. Skipped when Python, selenium or chromium are missing,
/// failed instead with BLUEDOT_REQUIRE_INTEGRATION=1.
extension GatewayProcessTests {
    @Suite struct BrowserTests {
        static let chromedriver = GatewayProcess.environment["BLUEDOT_CHROMEDRIVER"] ?? "/usr/bin/chromedriver"

        /// Whether selenium and chromedriver are here; when not, a failure with BLUEDOT_REQUIRE_INTEGRATION=1.
        static func browserAvailable() async -> Bool {
            var missing = await GatewayProcess.pythonMissing(["selenium"])
            if missing == nil, !FileManager.default.isExecutableFile(atPath: chromedriver) {
                missing = "no chromedriver at \(chromedriver) (apt-get install chromium chromium-driver)"
            }
            guard let missing else { return true }
            if GatewayProcess.required { Issue.record("BLUEDOT_REQUIRE_INTEGRATION=1 but \(missing)") }
            return false
        }

        @Test func theDotMovesOnTheDemoMap() async throws {
            guard await Self.browserAvailable() else { return }
            let demo = try GatewayProcess(GatewayProcess.bluedot, ["demo", "--listen", "127.0.0.1:0"])
            let url = try #require(await demo.waitForURL(seconds: 30), "no URL printed: \(demo.standardError)")
            #expect(demo.standardOutput.hasPrefix("BlueDot demo: open http://127.0.0.1:"))
            let screenshot = GatewayProcess.packageRoot.appendingPathComponent(".build/screenshots/demo.png").path
            let navigation = GatewayProcess.packageRoot.appendingPathComponent(".build/screenshots/navigation.png").path
            try? FileManager.default.removeItem(atPath: navigation)
            let browser = try GatewayProcess(GatewayProcess.python, [
                GatewayProcess.packageRoot.appendingPathComponent("Tools/browser-test/browser_test.py").path,
                "--url", url, "--screenshot", screenshot, "--navigation-screenshot", navigation,
                "--seconds", "6", "--chromedriver", Self.chromedriver,
            ])
            #expect(await browser.wait(seconds: 120), "browser check still running after 120 s")
            let report = browser.standardOutput
            #expect(browser.status == 0, "\(report) \(browser.standardError.suffix(2000))")
            let object = try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any]
            #expect(object?["ok"] as? Bool == true)
            #expect((object?["movedPixels"] as? Double ?? 0) >= 3)
            #expect(object?["tagLabels"] as? [String] == ["e78f135624ce"])
            #expect(object?["floors"] as? [String] == ["Lab floor", "Gallery"])
            #expect(FileManager.default.fileExists(atPath: screenshot))
            // At load, before any fix (the feed blocked), the view holds the venue's whole extent and is fitted to
            // it; the first fixes keep that zoom.
            let fit = object?["venueFit"] as? [String: Any]
            #expect(fit?["ok"] as? Bool == true, "\(fit ?? [:])")
            #expect(fit?["contains"] as? Bool == true)
            #expect((fit?["fill"] as? Double ?? 0) >= 0.8)
            #expect(fit?["eventsAtLoad"] as? Int == 0)
            #expect(fit?["zoomAfterFixes"] as? Double == fit?["zoom"] as? Double)
            #expect(object?["source"] as? String == "beacons")
            let favicon = object?["favicon"] as? [String: Any]
            #expect(favicon?["ok"] as? Bool == true, "\(favicon ?? [:])")
            #expect((favicon?["console404"] as? [Any])?.isEmpty == true)
            #expect((favicon?["network404"] as? [Any])?.isEmpty == true)
            // Navigation: the shown map rotation is minus the engine's navigation rotation (and minus the course
            // arrow's plan direction: the walk points up) within 1 degree once the dot moves; 0 after a drag.
            let turning = object?["navigationRotation"] as? [String: Any]
            #expect(turning?["ok"] as? Bool == true, "\(turning ?? [:])")
            #expect(turning?["turned"] as? Bool == true)
            #expect((turning?["worstEngineError"] as? Double ?? 99) <= 1)
            #expect((turning?["worstArrowError"] as? Double ?? 99) <= 1)
            #expect(abs(object?["rotationAfterDrag"] as? Double ?? 99) < 0.01)
            #expect(object?["followAfterDrag"] as? String == "off")
            #expect(FileManager.default.fileExists(atPath: navigation))
            demo.signal(SIGINT)
            #expect(await demo.wait(seconds: 6))
            #expect(demo.status == 0)
        }

        /// Compass navigation in the real browser (Tools/browser-test/compass_test.py): `bluedot run --gpsd` over
        /// Debian's gpsd replaying gpsd's rst39.log (a turning vehicle's `$GPHDT` headings) through gpsfake; with
        /// Compass on, the map turns to minus each heading the feed carries, the wedge points at it, and the source
        /// reads GNSS. Fails without gpsfake under BLUEDOT_REQUIRE_INTEGRATION=1.
        @Test func theMapTurnsWithTheHeading() async throws {
            guard await Self.browserAvailable() else { return }
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsfake") else {
                if GatewayProcess.required { Issue.record("BLUEDOT_REQUIRE_INTEGRATION=1 but gpsfake is missing") }
                return
            }
            let screenshot = GatewayProcess.packageRoot.appendingPathComponent(".build/screenshots/compass.png").path
            let browser = try GatewayProcess(GatewayProcess.python, [
                GatewayProcess.packageRoot.appendingPathComponent("Tools/browser-test/compass_test.py").path,
                "--bluedot", GatewayProcess.bluedot,
                "--log", GatewayProcess.packageRoot.appendingPathComponent("Tools/gnss/logs/rst39.log").path,
                "--turns", "2", "--screenshot", screenshot, "--chromedriver", Self.chromedriver,
            ])
            #expect(await browser.wait(seconds: 150), "compass check still running after 150 s")
            let report = browser.standardOutput
            #expect(browser.status == 0, "\(report) \(browser.standardError.suffix(2000))")
            let object = try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any]
            #expect(object?["ok"] as? Bool == true, "\(report)")
            #expect((object?["headings"] as? [Double])?.count ?? 0 >= 2, "the map turned to at least two headings")
            #expect((object?["worstRotationError"] as? Double ?? 99) <= 1)
            #expect(object?["wedgeOk"] as? Bool == true)
            #expect(object?["source"] as? String == "GNSS (gpsd)")
        }

        /// A campus view in the real browser (Tools/browser-test/campus_test.py): a mosquitto holding two sites'
        /// retained venues, statuses, bridge states and fixes, `bluedot run --mqtt ... --sites +`, and the page's site
        /// picker: each site's venue drawn with only its own targets, a switch, a site marked stale when its bridge
        /// reads 0, the pick kept over a reload, nothing loaded from elsewhere.
        @Test func aCampusViewPicksItsSitesInTheBrowser() async throws {
            guard await Self.browserAvailable() else { return }
            guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto") else {
                if GatewayProcess.required { Issue.record("BLUEDOT_REQUIRE_INTEGRATION=1 but mosquitto is missing") }
                return
            }
            let root = GatewayProcess.packageRoot
            let browser = try GatewayProcess(GatewayProcess.python, [
                root.appendingPathComponent("Tools/browser-test/campus_test.py").path, "--bluedot", GatewayProcess.bluedot,
                "--web-root", root.appendingPathComponent("Sources/Gateway/Page").path, "--chromedriver",
                Self.chromedriver, "--screenshot", root.appendingPathComponent(".build/screenshots/campus.png").path,
            ])
            #expect(await browser.wait(seconds: 120), "campus check still running after 120 s")
            let report = browser.standardOutput
            #expect(browser.status == 0, "\(report) \(browser.standardError.suffix(2000))")
            let object = try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any]
            #expect(object?["ok"] as? Bool == true, "\(report)")
            let checks = object?["checks"] as? [String: Bool] ?? [:]
            for name in ["picker", "westDrawn", "westDots", "switch", "stale", "reload", "local"] {
                #expect(checks[name] == true, "\(name): \(report)")
            }
        }

        /// The set-up page in the real browser (Tools/browser-test/setup_test.py): an editable tag-mode gateway with
        /// no venue yet, replaying the BOUN track; the page uploads a bundled plan, scales it by two clicks and a
        /// typed width, places receivers from the heard list, draws a room and an exit room, saves (positioning
        /// begins), shows it all again after a reload, and shows a bad IRK's error beside its field. The clicks it
        /// took and the page's weight are printed.
        @Test func aVenueIsSetUpInTheBrowser() async throws {
            guard await Self.browserAvailable() else { return }
            let folder = try GatewayProcess.scratch()
            defer { try? FileManager.default.removeItem(at: folder) }
            let root = GatewayProcess.packageRoot
            let gateway = try GatewayProcess(GatewayProcess.bluedot, [
                "run", "--mode", "tag", "--editable", "--venue", folder.appendingPathComponent("venue.json").path,
                "--devices", folder.appendingPathComponent("devices.json").path, "--observations",
                root.appendingPathComponent("Sources/Gateway/Demo/boun-straight_01.observations.jsonl").path, "--loop",
                "--listen", "127.0.0.1:0", "--history", "off",
            ])
            let url = try #require(await gateway.waitForURL(seconds: 30), "\(gateway.standardError)")
            let screenshot = root.appendingPathComponent(".build/screenshots/setup.png").path
            let browser = try GatewayProcess(GatewayProcess.python, [
                root.appendingPathComponent("Tools/browser-test/setup_test.py").path, "--url", url,
                "--plan", root.appendingPathComponent("Tools/browser-test/setup-plan.png").path,
                "--venue-reference", root.appendingPathComponent("Sources/Gateway/Demo/demo-lab.venue.json").path,
                "--screenshot", screenshot, "--chromedriver", Self.chromedriver,
            ])
            #expect(await browser.wait(seconds: 180), "set-up check still running after 180 s")
            let report = browser.standardOutput
            #expect(browser.status == 0, "\(report) \(browser.standardError.suffix(2000))")
            let object = try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any]
            #expect(object?["ok"] as? Bool == true, "\(report)")
            let checks = object?["checks"] as? [String: Bool] ?? [:]
            for name in ["local", "mapFollows", "scaled", "snapped", "anchors", "rooms", "reload", "fix", "irk", "accuracyMap", "survey", "fit"] {
                #expect(checks[name] == true, "\(name): \(report)")
            }
            #expect(object?["fixesBeforeSave"] as? Int == 0)
            #expect(((object?["irkError"] as? String) ?? "").contains("devices[0].irk"))
            print("set-up page: \(object?["clicksToSave"] ?? "?") clicks to save the venue, "
                + "\(object?["clicksToCalibrate"] ?? "?") to calibrate from three points, "
                + "\(object?["pageBytes"] ?? "?") bytes (setup.html, setup.js, setup.css)")
            // The venue as saved last (the map's check took a room away) is the file on disk.
            let saved = try Data(contentsOf: folder.appendingPathComponent("venue.json"))
            let venue = try JSONSerialization.jsonObject(with: saved) as? [String: Any]
            #expect((venue?["anchors"] as? [Any])?.count == 4 && (venue?["rooms"] as? [Any])?.count == 1)
            gateway.signal(SIGTERM)
            #expect(await gateway.wait(seconds: 10))
        }

        /// Rooms and the trail in the real browser (Tools/browser-test/rooms_trail_test.py): the demo lab's room
        /// outlines are drawn and a room's label counts who is in it as `/api/rooms` does; with Trail on, the
        /// followed target's trail comes from the (in-memory) history and the time slider takes it back.
        @Test func roomsAndTheTrailOnTheDemoMap() async throws {
            guard await Self.browserAvailable() else { return }
            let demo = try GatewayProcess(GatewayProcess.bluedot, ["demo", "--listen", "127.0.0.1:0"])
            let url = try #require(await demo.waitForURL(seconds: 30), "no URL printed: \(demo.standardError)")
            let screenshot = GatewayProcess.packageRoot.appendingPathComponent(".build/screenshots/rooms-trail.png").path
            let browser = try GatewayProcess(GatewayProcess.python, [
                GatewayProcess.packageRoot.appendingPathComponent("Tools/browser-test/rooms_trail_test.py").path,
                "--url", url, "--seconds", "30", "--trail-points", "5", "--screenshot", screenshot,
                "--chromedriver", Self.chromedriver,
            ])
            #expect(await browser.wait(seconds: 120), "browser check still running after 120 s")
            let report = browser.standardOutput
            #expect(browser.status == 0, "\(report) \(browser.standardError.suffix(2000))")
            let object = try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any]
            #expect(object?["roomsOk"] as? Bool == true, "\(report)")
            #expect(object?["trailOk"] as? Bool == true, "\(report)")
            #expect(((object?["rooms"] as? [String: Any])?["outlines"] as? Int) == 5, "the lab floor's five rooms")
            demo.signal(SIGINT)
            #expect(await demo.wait(seconds: 6))
            #expect(demo.status == 0)
        }
    }
}
