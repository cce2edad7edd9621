import BeaconLocation
import BlueDotCore
import Devices
import Foundation
import Gateway
import Hummingbird
import HCI
import LocationBus
import Logging
import Positioning
import Testing

/// The set-up page's server side: an editable gateway with no venue yet starts, lists what it hears, and begins
/// positioning from the next fix after a venue is saved (`PUT /api/venue`), which `/api/venue` and `/api/rooms`
/// show at once; a bad venue is refused with the loader's message and its field, and nothing changes; plans and the
/// registry are saved the same way; a gateway not started editable refuses every save.
@Suite struct SetupTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The spine tests' room, with `rooms`, as a venue file.
    static func venueText(rooms: [String]) -> String {
        #"{"name": "room", "notes": "kept as written", "anchors": [{"id": "n", "x": 6, "y": 8, "z": 2.5}, "#
            + #"{"id": "e", "x": 12, "y": 4, "z": 2.5}, {"id": "s", "x": 6, "y": 0, "z": 2.5}, "#
            + #"{"id": "w", "x": 0, "y": 4, "z": 2.5}],"# + "\n" + #" "rooms": ["# + rooms.joined(separator: ",\n  ") + "]}"
    }

    static let west = #"{"id": "west", "name": "West", "floor": 0, "polygon": [[0, 0], [7, 0], [7, 8], [0, 8]]}"#
    static let east =
        #"{"id": "east", "name": "East", "floor": 0, "polygon": [[7, 0], [12, 0], [12, 8], [7, 8]], "exit": true}"#
    static let venueText = venueText(rooms: [west, east])

    /// An editable tag-mode gateway over `folder/venue.json` and `folder/devices.json`, which do not exist yet, and
    /// one tag standing in the west room for `seconds`.
    static func freshApp(folder: URL, clock: ManualClock, seconds: Double) throws -> GatewayApp {
        var c = GatewayConfiguration()
        c.mode = .tag
        c.editable = true
        c.setSource(.observations(path: "in-memory"))
        c.venuePath = folder.appendingPathComponent("venue.json").path
        c.devicesPath = folder.appendingPathComponent("devices.json").path
        let input = PacedReplaySource(
            name: "tag", observations: GatewaySpineTests.standing(target: "tag-1", seconds: seconds), clock: clock)
        return try GatewayApp(configuration: c, inputs: [input], defaultWebRoot: "/nonexistent", clock: clock,
                              logger: quiet)
    }

    static func body(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    static func object(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any])
    }

    @Test(.timeLimit(.minutes(1))) func aFreshInstallStartsAndPositionsOnceAVenueIsSaved() async throws {
        let folder = try GatewayProcess.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = ManualClock(start: 1000)
        let app = try Self.freshApp(folder: folder, clock: clock, seconds: 30)
        #expect(!app.siteFiles.venueLoaded && app.venue.anchors.isEmpty)
        let feed = app.hub.subscribe()
        let service = Task { try await app.locationService.run() }
        let router = Application(router: GatewayRouter.build(app.dependencies))
        // Heard, but no venue: no fix, and the receivers it hears are listed for placing.
        await GatewaySpineTests.drive(clock, sleepers: 3) { app.locationService.spine.statistics?.inputs.observations ?? 0 > 40 }
        #expect(app.hub.targetCount == 0)
        try await router.test(.router) { client in
            try await client.execute(uri: "/api/setup", method: .get) { response in
                let setup = try Self.object(response.body)
                #expect(setup["editable"] as? Bool == true && setup["venueLoaded"] as? Bool == false)
                #expect(setup["mode"] as? String == "tag")
            }
            try await client.execute(uri: "/api/venue/file", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/api/heard", method: .get) { response in
                let heard = try Self.object(response.body)
                let list = try #require(heard["heard"] as? [[String: Any]])
                // The four receivers; "stranger", an anchor the venue does not have, is a receiver too in tag
                // mode (anchors are the receivers): placed false for all, none yet in the venue.
                let ids = Set(list.compactMap { $0["id"] as? String })
                #expect(ids.isSuperset(of: ["n", "e", "s", "w"]), "\(ids)")
                #expect(list.allSatisfy { $0["kind"] as? String == "receiver" && $0["placed"] as? Bool == false })
                let rssi = list.compactMap { $0["rssi"] as? Double }
                #expect(rssi == rssi.sorted(by: >), "strongest first")
                #expect(!ids.contains("tag-1"), "a target nobody enrolled is not listed")
            }
            // A bad venue: 400 with the loader's message and its field; nothing written, nothing changed.
            let bad = Self.venueText.replacingOccurrences(of: #""x": 12"#, with: #""x": "twelve""#)
            try await client.execute(uri: "/api/venue", method: .put, body: Self.body(bad)) { response in
                #expect(response.status == .badRequest)
                let problem = try Self.object(response.body)
                #expect(problem["field"] as? String == "anchors[1].x")
                #expect((problem["error"] as? String)?.contains("venue.json: anchors[1].x: expected a number") == true)
            }
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("venue.json").path))
            #expect(!app.siteFiles.venueLoaded)
            // The venue saved: the file as sent, and the map's documents at once.
            try await client.execute(uri: "/api/venue", method: .put, body: Self.body(Self.venueText)) { response in
                #expect(response.status == .ok)
                let saved = try Self.object(response.body)
                #expect(saved["anchors"] as? Int == 4 && saved["rooms"] as? Int == 2)
            }
            #expect(try String(contentsOf: folder.appendingPathComponent("venue.json"), encoding: .utf8) == Self.venueText)
            try await client.execute(uri: "/api/venue", method: .get) { response in
                let venue = try Self.object(response.body)
                #expect((venue["anchors"] as? [Any])?.count == 4)
                #expect((venue["rooms"] as? [[String: Any]])?.last?["exit"] as? Bool == true)
            }
            try await client.execute(uri: "/api/rooms", method: .get) { response in
                #expect(String(buffer: response.body).hasPrefix(#"[{"id":"west","name":"West","floor":0,"occupancy":"#))
            }
            try await client.execute(uri: "/api/venue/file", method: .get) { response in
                #expect(String(buffer: response.body) == Self.venueText, "the file as saved, its notes kept")
            }
        }
        // Positioning begins: the tag in the west room, counted there.
        let rooms = try #require(app.dependencies.rooms)
        await GatewaySpineTests.drive(clock, sleepers: 3) {
            app.hub.current.contains { $0.targetID == "tag-1" && $0.room == "west" } && rooms.members["west"] == ["tag-1"]
        }
        let fix = try #require(app.hub.current.first { $0.targetID == "tag-1" })
        #expect(abs(fix.x - 4) < 1 && abs(fix.y - 3) < 1)
        #expect(fix.presence == .home, "the presence rule of the new venue judges it")
        // Saved again without a room: the old file is kept beside it, the room goes from the map's rooms.
        let oneRoom = Self.venueText(rooms: [Self.west])
        try await router.test(.router) { client in
            try await client.execute(uri: "/api/venue", method: .put, body: Self.body(oneRoom)) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
            }
            try await client.execute(uri: "/api/rooms", method: .get) { response in
                let ids = (try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]])?
                    .compactMap { $0["id"] as? String }
                #expect(ids == ["west"])
            }
        }
        #expect(try String(contentsOf: folder.appendingPathComponent("venue.json.previous"), encoding: .utf8)
            == Self.venueText)
        service.cancel()
        try await service.value
        // The map was told of each save (it draws the venue again).
        var venues: [FeedEvent] = []
        for await message in feed where message.event.name == "venue" { venues.append(message.event) }
        #expect(venues == [.venue(revision: 1), .venue(revision: 2)])
    }

    @Test func plansAndTheRegistryAreSavedAndUsed() async throws {
        let folder = try GatewayProcess.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let app = try Self.freshApp(folder: folder, clock: ManualClock(start: 1000), seconds: 1)
        // A PNG's and a JPEG's headers give their size; anything else is refused.
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        png += [0, 0, 0x02, 0x80, 0, 0, 0x01, 0xE0, 8, 2, 0, 0, 0]
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0, 0xFF, 0xC0, 0, 11, 8, 0x02, 0x58, 0x03, 0x20, 3]
        try await Application(router: GatewayRouter.build(app.dependencies)).test(.router) { client in
            try await client.execute(uri: "/api/venue/plan/0", method: .put, body: ByteBuffer(bytes: png)) { response in
                #expect(String(buffer: response.body) == #"{"image":"venue.floor0.png","width":640,"height":480}"#)
            }
            try await client.execute(uri: "/api/venue/plan/-1", method: .put, body: ByteBuffer(bytes: jpeg)) { response in
                #expect(String(buffer: response.body) == #"{"image":"venue.floor-1.jpg","width":800,"height":600}"#)
            }
            try await client.execute(uri: "/api/venue/plan/0", method: .put, body: Self.body("GIF89a")) {
                #expect($0.status == .badRequest)
            }
            #expect(FileManager.default.contents(atPath: folder.appendingPathComponent("venue.floor0.png").path)
                == Data(png))
            // The saved plan is the floor's once a venue names it.
            let venue = #"{"name": "v", "anchors": [], "floors": [{"floor": 0, "plan": {"image": "venue.floor0.png", "#
                + #""bounds": [[0, 0], [20, 15]]}}]}"#
            try await client.execute(uri: "/api/venue", method: .put, body: Self.body(venue)) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/venue/plan/0", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "image/png")
                #expect(Array(buffer: response.body) == png)
            }
            // The registry: a bad IRK named by its field, then a device claiming a beacon id, identified at once.
            let beacon = "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7"
            #expect(app.devices.identify(address: BDAddress("c0:11:22:33:44:55")!, type: .random, beaconID: beacon, at: 0)
                == .beacon(beacon))
            try await client.execute(
                uri: "/api/devices", method: .put, body: Self.body(#"{"devices": [{"id": "a", "irk": "00"}]}"#)
            ) { response in
                #expect(response.status == .badRequest)
                let object = try Self.object(response.body)
                #expect(object["field"] as? String == "devices[0].irk")
            }
            let registry = #"{"devices": [{"id": "keys", "name": "Keys", "ibeacon": "\#(beacon)"}]}"#
            try await client.execute(uri: "/api/devices", method: .put, body: Self.body(registry)) { response in
                #expect(String(buffer: response.body).hasSuffix(#""devices":1}"#))
            }
            #expect(app.devices.identify(address: BDAddress("c0:11:22:33:44:55")!, type: .random, beaconID: beacon, at: 0)
                == .device("keys"))
            try await client.execute(uri: "/api/devices", method: .get) { #expect(String(buffer: $0.body) == registry) }
            try await client.execute(uri: "/api/display", method: .get) { response in
                #expect(String(buffer: response.body).contains(#""targetNames":{"keys":"Keys"}"#))
            }
        }
    }

    /// The quick calibration: points recorded where the user stands (the request held while the clock runs), then
    /// the anchors' models fitted from them, as `bluedot-calibrate fit` fits a survey; and the predicted-accuracy
    /// map of the saved venue.
    @Test(.timeLimit(.minutes(1))) func aQuickCalibrationFitsTheAnchorsFromPointsStoodAt() async throws {
        let folder = try GatewayProcess.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = ManualClock(start: 1000)
        let app = try Self.freshApp(folder: folder, clock: clock, seconds: 120)
        let service = Task { try await app.locationService.run() }
        let router = Application(router: GatewayRouter.build(app.dependencies))
        try await router.test(.router) { client in
            try await client.execute(uri: "/api/venue", method: .put, body: Self.body(Self.venueText)) {
                #expect($0.status == .ok)
            }
            // The predicted accuracy of the saved venue: inside the ring of four anchors, bounded everywhere.
            try await client.execute(uri: "/api/setup/accuracy?floor=0", method: .get) { response in
                let map = try Self.object(response.body)
                let points = try #require(map["points"] as? [[String: Any]])
                #expect(points.count == (map["columns"] as? Int ?? 0) * (map["rows"] as? Int ?? 0) && !points.isEmpty)
                let p50 = try #require(map["p50"] as? Double), p90 = try #require(map["p90"] as? Double)
                // 4.2 and 5.5 m when written, with the uncalibrated model's 5.4 dB of shadowing.
                #expect(p50 > 0 && p50 <= p90 && p90 < 7, "\(p50) \(p90)")
                #expect(map["suggestion"] is [String: Any])
            }
            try await client.execute(uri: "/api/setup/accuracy?floor=1", method: .get) { response in
                let map = try Self.object(response.body)
                let points = try #require(map["points"] as? [[String: Any]])
                #expect(points.allSatisfy { $0["crlb"] is NSNull }, "no anchors on floor 1")
            }
            // A floor far outside -999 ... 999 is refused, not converted (schemathesis's -1e300 trapped it).
            for floor in ["-1e300", "1e300", "1000"] {
                try await client.execute(uri: "/api/setup/survey", method: .put,
                                         body: Self.body(#"{"x": 4, "y": 3, "floor": \#(floor)}"#)) {
                    #expect($0.status == .badRequest, "floor \(floor)")
                }
            }
            // Tag mode records a device it hears: tag-1 is not enrolled, so not yet.
            try await client.execute(uri: "/api/setup/survey", method: .put,
                                     body: Self.body(#"{"x": 4, "y": 3, "seconds": 2, "target": "tag-1"}"#)) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: "/api/setup/fit", method: .get) { #expect($0.status == .conflict) }
            let registry = #"{"devices": [{"id": "tag-1", "name": "Tag", "address": "c0:11:22:33:44:55"}]}"#
            try await client.execute(uri: "/api/devices", method: .put, body: Self.body(registry)) { #expect($0.status == .ok) }
            // Two seconds more: the heard list has it as a device.
            let enrolled = clock.now()
            await GatewaySpineTests.drive(clock, sleepers: 3) { clock.now() >= enrolled + 2 }
            try await client.execute(uri: "/api/heard", method: .get) { response in
                #expect(String(buffer: response.body).contains(#"{"id":"tag-1","kind":"device","name":"Tag""#))
            }
            for (x, y) in [(4.0, 3.0), (4.5, 3.0), (4.0, 3.5)] {
                let body = Self.body(#"{"x": \#(x), "y": \#(y), "seconds": 2, "target": "tag-1"}"#)
                let done = LockedValue(false)
                let recording = Task {
                    defer { done.withLock { $0 = true } }
                    return try await client.execute(uri: "/api/setup/survey", method: .put, body: body) { $0 }
                }
                // The request is held while the clock runs the recording's 2 s.
                await GatewaySpineTests.drive(clock, sleepers: 3) { done.value }
                let response = try await recording.value
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                let point = try #require(try Self.object(response.body)["point"] as? [String: Any])
                #expect(point["anchors"] as? Int == 5, "the four anchors and the one the venue lacks")
                #expect((point["samples"] as? Int ?? 0) >= 4 * 4, "2 s at 4 Hz from each anchor")
            }
            try await client.execute(uri: "/api/setup/survey", method: .get) { response in
                let survey = try Self.object(response.body)
                #expect((survey["points"] as? [Any])?.count == 3 && survey["recording"] as? Bool == false)
            }
            try await client.execute(uri: "/api/setup/fit", method: .get) { response in
                #expect(response.status == .ok)
                let fit = try Self.object(response.body)
                #expect(fit["points"] as? Int == 3)
                let venue = try #require(fit["venue"] as? [String: Any])
                let anchors = try #require(venue["anchors"] as? [[String: Any]])
                #expect(anchors.count == 4)
                #expect(anchors.allSatisfy { ($0["calibration"] as? [String: Any])?["source"] as? String == "survey" })
                #expect((fit["anchors"] as? [String: Any])?.count == 4)
            }
        }
        service.cancel()
        try await service.value
    }

    /// The devices BlueZ keeps keys for on the gateway (`bluez-keys`), as registry entries the page offers: the IRK
    /// turned into the registry's byte order, a folder that is no device's skipped with a note.
    @Test func pairedDevicesAreOfferedFromBlueZsKeys() async throws {
        let folder = try GatewayProcess.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let adapter = folder.appendingPathComponent("bluez/00:1A:7D:DA:71:13")
        let phone = adapter.appendingPathComponent("F0:99:B6:12:34:56")
        try FileManager.default.createDirectory(at: phone, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: adapter.appendingPathComponent("cache"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: adapter.appendingPathComponent("not-a-device"),
                                                withIntermediateDirectories: true)
        // As BlueZ 5.66 writes it after pairing: the Core Specification's sample IRK, least significant byte first.
        try "[General]\nName=Alice's iPhone\nAddressType=public\n\n[IdentityResolvingKey]\nKey=9B7D390AA610103405ADC857A33402EC\n"
            .write(to: phone.appendingPathComponent("info"), atomically: true, encoding: .utf8)
        var d = try Self.freshApp(folder: folder, clock: ManualClock(start: 1000), seconds: 1).dependencies
        d.bluezKeys = folder.appendingPathComponent("bluez").path
        let found = d
        try await Application(router: GatewayRouter.build(found)).test(.router) { client in
            try await client.execute(uri: "/api/devices/bluez", method: .get) { response in
                #expect(response.status == .ok)
                let offered = try Self.object(response.body)
                let devices = try #require(offered["devices"] as? [[String: Any]])
                #expect(devices.count == 1)
                #expect(devices.first?["name"] as? String == "Alice's iPhone")
                #expect(devices.first?["irk"] as? String == "ec0234a357c8ad05341010a60a397d9b")
                #expect((offered["notes"] as? [String])?.contains { $0.contains("not-a-device") } == true)
            }
        }
        d.bluezKeys = folder.appendingPathComponent("missing").path
        let missing = d
        try await Application(router: GatewayRouter.build(missing)).test(.router) { client in
            try await client.execute(uri: "/api/devices/bluez", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body).contains("no such folder"))
            }
        }
    }

    @Test func aGatewayNotEditableSavesNothing() async throws {
        let fixture = try RouterFixture()
        let app = Application(router: GatewayRouter.build(fixture.dependencies()))
        try await app.test(.router) { client in
            for uri in ["/api/venue", "/api/venue/plan/0", "/api/devices"] {
                try await client.execute(uri: uri, method: .put, body: Self.body("{}")) { response in
                    #expect(response.status == .forbidden)
                    #expect(String(buffer: response.body).contains("--editable"))
                }
            }
            for uri in ["/api/devices", "/api/devices/bluez"] {
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .forbidden) }
            }
            try await client.execute(uri: "/api/setup", method: .get) { response in
                let object = try Self.object(response.body)
                #expect(object["editable"] as? Bool == false)
            }
            try await client.execute(uri: "/api/venue/file", method: .get) { response in
                #expect(response.status == .ok)
                let object = try Self.object(response.body)
                #expect(object["name"] as? String == "Test \"lab\"")
            }
            try await client.execute(uri: "/setup", method: .get) { response in
                #expect(response.status == .found && response.headers[.location] == "/setup.html")
            }
        }
    }
}

extension GatewayProcessTests {
    /// `SIGHUP` rereads the venue from disk (systemd's `ExecReload`); a file that fails to load is refused with one
    /// log line and the old venue stays.
    @Test func hangupRereadsTheVenue() async throws {
        let folder = try GatewayProcess.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let venue = folder.appendingPathComponent("venue.json")
        try SetupTests.venueText.write(to: venue, atomically: true, encoding: .utf8)
        let observations = GatewayProcess.packageRoot.appendingPathComponent(
            "Sources/Gateway/Demo/boun-straight_01.observations.jsonl").path
        let gateway = try GatewayProcess(GatewayProcess.bluedot, [
            "run", "--mode", "tag", "--venue", venue.path, "--observations", observations, "--loop",
            "--listen", "127.0.0.1:0", "--history", "off",
        ])
        let url = try #require(await gateway.waitForURL(seconds: 30), "\(gateway.standardError)")
        func rooms() async throws -> [String] {
            let (_, body) = try await GatewayProcess.get(url + "api/rooms")
            return (try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [[String: Any]])?
                .compactMap { $0["id"] as? String } ?? []
        }
        #expect(try await rooms() == ["west", "east"])
        try SetupTests.venueText(rooms: [SetupTests.west, SetupTests.east.replacingOccurrences(of: "east", with: "south")])
            .write(to: venue, atomically: true, encoding: .utf8)
        gateway.signal(SIGHUP)
        var seen: [String] = []
        for _ in 0..<100 where seen != ["west", "south"] {
            try await Task.sleep(for: .milliseconds(50))
            seen = try await rooms()
        }
        #expect(seen == ["west", "south"])
        try "{\"anchors\": 3}".write(to: venue, atomically: true, encoding: .utf8)
        gateway.signal(SIGHUP)
        for _ in 0..<100 where !gateway.standardError.contains("venue not reloaded") {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(gateway.standardError.contains("venue not reloaded; the one in use stays"))
        #expect(gateway.standardError.contains("anchors: expected an array"), "\(gateway.standardError.suffix(600))")
        #expect(try await rooms() == ["west", "south"])
        gateway.signal(SIGTERM)
        #expect(await gateway.wait(seconds: 10))
        #expect(gateway.status == 0)
    }
}
