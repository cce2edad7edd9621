import BeaconLocation
import BlueDotCore
import Devices
import Foundation
import Formats
import Logging
import Positioning
import Testing

@testable import Site

/// The site's MQTT parts in process, against a real mosquitto broker: the client's reconnects, the receiver's
/// batches and buffer, the solver's clock offsets, reorder window and payload checks, ESPresense reports.
@Suite(.serialized, .enabled(if: MosquittoBroker.available, "mosquitto is not installed"))
struct SiteBrokerTests {
    static let logger = Logger(label: "test.site")

    /// A clock `shift` seconds off the system's (a receiver whose clock is wrong).
    struct ShiftedClock: BlueDotClock {
        let shift: Double
        func now() -> Double { SystemClock().now() + shift }
        func sleep(until deadline: Double) async throws { try await SystemClock().sleep(until: deadline - shift) }
    }

    /// Collects what a source delivers: each observation with its arrival time, and the batches with the time
    /// each was handed over.
    final class Collected: Sendable {
        let items = LockedValue<[(Observation, Double)]>([])
        let batches = LockedValue<[(batch: ObservationBatch, handedOverAt: Double)]>([])
        var count: Int { items.withLock { $0.count } }
        var observations: [Observation] { items.withLock { $0.map(\.0) } }
        func add(_ batch: ObservationBatch) {
            let now = SystemClock().now()
            batches.withLock { $0.append((batch, now)) }
            items.withLock { $0 += batch.map { ($0.observation, $0.arrivedAt) } }
        }
    }

    static func client(_ broker: MosquittoBroker, id: String, will: MQTTMessage? = nil, birth: [MQTTMessage] = [])
        throws -> MQTTClient
    {
        var options = try MQTTOptions(url: broker.url)
        options.clientID = id
        options.reconnectFirstDelaySeconds = 1
        options.reconnectLargestDelaySeconds = 2
        return try MQTTClient(options: options, will: will, birth: birth, logger: logger)
    }

    static func solver(_ broker: MosquittoBroker, site: String = "t", known: Set<String>, espresense: String? = nil,
                       measuredPower: [String: Double] = [:], devices: DeviceIdentifier = .beaconsOnly()) throws
        -> SiteSource
    {
        let topics = try #require(SiteTopics(site: site))
        var settings = SiteSource.Settings()
        settings.espresensePrefix = espresense
        settings.reorderWindowSeconds = 0.3
        return SiteSource(client: try client(broker, id: "solver-\(site)"), topics: topics, knownReceivers: known,
                          measuredPower: measuredPower, devices: devices, settings: settings, clock: SystemClock(),
                          logger: logger)
    }

    /// Runs `source` in the background, collecting; returns the collector and the task.
    static func run(_ source: SiteSource) -> (Collected, Task<Void, Never>) {
        let collected = Collected()
        let task = Task { _ = try? await source.run(started: {}) { batch in collected.add(batch) } }
        return (collected, task)
    }

    static func observation(_ t: Double, rx: String, tag: String = "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7",
                            rssi: Double = -70) -> Observation {
        Observation(t: t, anchor: rx, target: tag, rssiDBm: rssi, txPowerDBm: -59)
    }

    @Test func clientReconnectsAfterTheBrokerRestartsAndRenewsSubscriptions() async throws {
        let broker = try await MosquittoBroker()
        let client = try Self.client(broker, id: "c1")
        try client.subscribe("x/#")
        try client.start()
        let received = LockedValue<[String]>([]), connects = LockedValue(0)
        let reader = Task {
            for await event in client.events {
                switch event {
                case .connected: connects.withLock { $0 += 1 }
                case .message(let m): received.withLock { $0.append(String(decoding: m.payload, as: UTF8.self)) }
                case .disconnected: break
                }
            }
        }
        #expect(await eventually { client.isConnected })
        #expect(client.protocolLevel == 5, "mosquitto 2 speaks MQTT 5")
        _ = try broker.publish(["-t", "x/1", "-m", "before"])
        #expect(await eventually { received.value == ["before"] })
        let down = ContinuousClock.now
        try await broker.restart()
        #expect(await eventually(seconds: 5) { connects.value == 2 }, "reconnected within 5 s of the broker's return")
        _ = try broker.publish(["-t", "x/2", "-m", "after"])
        #expect(await eventually { received.value == ["before", "after"] }, "the subscription was renewed")
        print("client back \(ContinuousClock.now - down) after the broker restart began")
        #expect(client.statistics.connects == 2 && client.statistics.disconnects >= 1)
        client.stop()
        await reader.value
        broker.kill()
    }

    @Test func aClientStartedBeforeItsBrokerConnectsWhenTheBrokerComes() async throws {
        let port = try MosquittoBroker.freePort()
        var options = try MQTTOptions(url: "mqtt://127.0.0.1:\(port)")
        options.reconnectLargestDelaySeconds = 1
        let client = try MQTTClient(options: options, logger: Self.logger)
        try client.start()
        try await Task.sleep(for: .milliseconds(500))
        #expect(!client.isConnected)
        #expect(client.publish(MQTTMessage(topic: "a", text: "b")) == .notConnected)
        let broker = try await MosquittoBroker(port: port)
        #expect(await eventually(seconds: 5) { client.isConnected })
        client.stop()
        broker.kill()
    }

    @Test func refusedCredentialsAreRetriedAndTheRightOnesFromAPasswordFileConnect() async throws {
        // libmosquitto's own loop gives up on an MQTT 5 refusal; the client's network thread must keep trying.
        let scratch = try IntegrationEnvironment.scratchDirectory()
        let passwords = scratch.appendingPathComponent("passwd").path
        let made = try ChildProcess.run("/usr/bin/mosquitto_passwd", ["-b", "-c", passwords, "gw", "s3cret-pw"],
                                        timeout: .seconds(10))
        #expect(made.status == 0, "\(made.standardError)")
        let broker = try await MosquittoBroker(extraConfiguration: "password_file \(passwords)\n")
        // The broker's configuration allows anonymous clients; the password file makes it check names given.
        var wrong = try MQTTOptions(url: "mqtt://gw@127.0.0.1:\(broker.port)")
        wrong.password = "wrong"
        wrong.reconnectLargestDelaySeconds = 1
        let refused = try MQTTClient(options: wrong, logger: Self.logger)
        let reasons = LockedValue<[String]>([])
        try refused.start()
        let reading = Task {
            for await case .disconnected(let reason) in refused.events { reasons.withLock { $0.append(reason) } }
        }
        try await Task.sleep(for: .seconds(3.5))
        #expect(!refused.isConnected)
        #expect(reasons.value.contains { $0.contains("refused") || $0.contains("uthori") || $0.contains("password") },
                "\(reasons.value)")
        let log = broker.child?.standardError ?? ""
        let attempts = log.components(separatedBy: "not authorised").count - 1
        #expect(attempts >= 2, "kept trying after the refusal (\(attempts) refusals logged): \(log.suffix(800))")
        refused.stop()
        await reading.value

        let file = scratch.appendingPathComponent("mqtt-password").path
        try "s3cret-pw\n".write(toFile: file, atomically: true, encoding: .utf8)
        var right = try MQTTOptions(url: "mqtt://gw@127.0.0.1:\(broker.port)")
        right.password = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").first.map(String.init)
        let accepted = try MQTTClient(options: right, logger: Self.logger)
        try accepted.start()
        #expect(await eventually { accepted.isConnected })
        accepted.stop()
        broker.kill()
    }

    @Test func mqttsWithACertificateAuthorityAndAClientCertificate() async throws {
        // A CA, a server certificate for 127.0.0.1 and a client certificate, made by openssl for this test; the
        // broker requires the client's certificate.
        let dir = try IntegrationEnvironment.scratchDirectory()
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let openssl = IntegrationEnvironment.which("openssl") ?? "/usr/bin/openssl"
        try "subjectAltName=IP:127.0.0.1\n".write(toFile: path("san.ext"), atomically: true, encoding: .utf8)
        for arguments in [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=BlueDot test CA",
             "-keyout", path("ca.key"), "-out", path("ca.pem")],
            ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", path("server.key"),
             "-out", path("server.csr")],
            ["x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
             "-CAcreateserial", "-days", "2", "-extfile", path("san.ext"), "-out", path("server.pem")],
            ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=rx-1", "-keyout", path("client.key"),
             "-out", path("client.csr")],
            ["x509", "-req", "-in", path("client.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
             "-CAcreateserial", "-days", "2", "-out", path("client.pem")],
        ] {
            let made = try ChildProcess.run(openssl, arguments, timeout: .seconds(30))
            #expect(made.status == 0, "openssl \(arguments.first ?? ""): \(made.standardError)")
        }
        // mosquitto drops to its own user: let it read the files.
        for name in ["ca.pem", "server.pem", "server.key"] { chmod(path(name), 0o644) }
        chmod(dir.path, 0o755)
        let broker = try await MosquittoBroker(extraConfiguration: """
            cafile \(path("ca.pem"))
            certfile \(path("server.pem"))
            keyfile \(path("server.key"))
            require_certificate true
            """)
        var options = try MQTTOptions(url: "mqtts://127.0.0.1:\(broker.port)")
        options.caFile = path("ca.pem")
        options.certFile = path("client.pem")
        options.keyFile = path("client.key")
        options.reconnectLargestDelaySeconds = 1
        let client = try MQTTClient(options: options, logger: Self.logger)
        try client.subscribe("tls/#", qos: 1)
        try client.start()
        #expect(await eventually { client.isConnected }, "TLS with the CA and a client certificate")
        let received = LockedValue<[String]>([])
        let reading = Task {
            for await case .message(let m) in client.events {
                received.withLock { $0.append(String(decoding: m.payload, as: UTF8.self)) }
            }
        }
        #expect(client.publish(MQTTMessage(topic: "tls/a", text: "sealed", qos: 1)) == .sent)
        #expect(await eventually { received.value == ["sealed"] })
        client.stop()
        await reading.value

        // Without the client certificate the broker refuses the handshake; the client keeps trying, never connects.
        var anonymous = try MQTTOptions(url: "mqtts://127.0.0.1:\(broker.port)")
        anonymous.caFile = path("ca.pem")
        let refused = try MQTTClient(options: anonymous, logger: Self.logger)
        try refused.start()
        try await Task.sleep(for: .seconds(2))
        #expect(!refused.isConnected)
        refused.stop()
        // A CA file that does not exist is an option error at once, naming it.
        var missing = try MQTTOptions(url: "mqtts://127.0.0.1:\(broker.port)")
        missing.caFile = path("nowhere.pem")
        #expect(throws: MQTTError.self) { try MQTTClient(options: missing, logger: Self.logger) }
        broker.kill()
    }

    @Test func aBrokerThatSpeaksOnly311IsReachedByFallingBack() async throws {
        // mosquitto 2 speaks MQTT 5, so a 3.1.1-only broker is played by a minimal stub that answers an MQTT 5
        // CONNECT as a 3.1.1 broker must (CONNACK 1, "unacceptable protocol version") and accepts 3.1.1.
        let scratch = try IntegrationEnvironment.scratchDirectory()
        let stub = scratch.appendingPathComponent("broker311.py").path
        try Self.broker311.write(toFile: stub, atomically: true, encoding: .utf8)
        let child = try ChildProcess("/usr/bin/env", ["python3", stub])
        defer { child.kill() }
        var port = 0
        #expect(await child.waitForOutput(timeout: .seconds(10)) { text in
            port = Int(text.split(separator: "\n").first ?? "") ?? 0
            return port > 0
        })
        var options = try MQTTOptions(url: "mqtt://127.0.0.1:\(port)")
        options.reconnectLargestDelaySeconds = 1
        let client = try MQTTClient(options: options, logger: Self.logger)
        try client.start()
        let levels = LockedValue<[Int]>([])
        let reading = Task {
            for await case .connected(let level) in client.events { levels.withLock { $0.append(level) } }
        }
        #expect(await eventually(seconds: 8) { levels.value == [4] }, "connected in 3.1.1")
        #expect(client.protocolLevel == 4)
        #expect(child.standardOutput.contains("level 5 refused") && child.standardOutput.contains("level 4 accepted"))
        client.stop()
        await reading.value
    }

    static let broker311 = """
        import socket, threading
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        print(server.getsockname()[1], flush=True)
        def serve(connection):
            data = connection.recv(4096)
            i = 1
            while data[i] & 0x80:
                i += 1
            i += 1
            name = (data[i] << 8) | data[i + 1]
            level = data[i + 2 + name]
            if level != 4:
                print("level %d refused" % level, flush=True)
                connection.send(bytes([0x20, 2, 0, 1]))
                connection.close()
                return
            print("level 4 accepted", flush=True)
            connection.send(bytes([0x20, 2, 0, 0]))
            while True:
                packet = connection.recv(4096)
                if not packet:
                    return
                if packet[0] == 0xC0:
                    connection.send(bytes([0xD0, 0]))
        while True:
            connection, _ = server.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()
        """

    @Test func birthIsRetainedAndACleanStopSaysOffline() async throws {
        // The last will itself (a receiver killed with SIGKILL) is checked by SiteProcessTests.
        let broker = try await MosquittoBroker()
        let status = "bluedot/t/receivers/rx-9/status"
        let client = try Self.client(
            broker, id: "rx-9", will: MQTTMessage(topic: status, text: "offline", qos: 1, retain: true),
            birth: [MQTTMessage(topic: status, text: "online", qos: 1, retain: true)])
        try client.start()
        #expect(await eventually { client.isConnected })
        #expect(await eventually { (try? broker.subscribe(status, count: 1, timeoutSeconds: 1)) == ["\(status) online"] })
        // A clean stop publishes the farewell (no will is needed).
        client.stop(farewell: [MQTTMessage(topic: status, text: "offline", qos: 1, retain: true)])
        #expect(try broker.subscribe(status, count: 1) == ["\(status) offline"])
        broker.kill()
    }

    @Test func batchesCrossTheBrokerAndTheSolverCorrectsAReceiverClockTwoSecondsOff() async throws {
        let broker = try await MosquittoBroker()
        let solver = try Self.solver(broker, known: ["rx-1", "rx-2"])
        let (collected, task) = Self.run(solver)
        #expect(await eventually { solver.client.isConnected })
        let topics = try #require(SiteTopics(site: "t"))
        var publishers: [(SightingPublisher, MQTTClient, any BlueDotClock, Task<Void, Never>)] = []
        for (rx, shift) in [("rx-1", -2.0), ("rx-2", 0.0)] {
            let client = try Self.client(broker, id: rx)
            try client.start()
            let clock = ShiftedClock(shift: shift)
            let publisher = SightingPublisher(client: client, topics: topics, receiver: rx, clock: clock,
                                              logger: Self.logger)
            publishers.append((publisher, client, clock, Task { await publisher.run() }))
        }
        #expect(await eventually { publishers.allSatisfy { $0.1.isConnected } })
        // Each receiver hears the tag every 50 ms for 3 s, stamping with its own clock.
        for _ in 0..<60 {
            for (publisher, _, clock, _) in publishers {
                publisher.offer(Self.observation(clock.now(), rx: publisher.receiver))
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(await eventually { collected.count == 120 }, "delivered \(collected.count) of 120")
        let receivers = Dictionary(uniqueKeysWithValues: solver.receivers.map { ($0.id, $0) })
        let off = try #require(receivers["rx-1"]?.clockOffset), right = try #require(receivers["rx-2"]?.clockOffset)
        print("estimated offsets: rx-1 \(off) s, rx-2 \(right) s")
        #expect(abs(off - 2) < 0.05, "rx-1's clock is 2 s behind")
        #expect(abs(right) < 0.05)
        // Corrected, both receivers' sightings sit on the solver's clock, in time order.
        let delivered = collected.items.value
        #expect(zip(delivered, delivered.dropFirst()).allSatisfy { $0.0.t <= $1.0.t })
        // Each sighting keeps the time its message arrived (a receiver's batch leaves every 100 ms), while it is
        // handed over once the reorder window has passed: the window is not counted as the report's arrival.
        let batches = collected.batches.value
        for (batch, handedOverAt) in batches {
            for arrival in batch {
                let o = arrival.observation, arrivedAt = arrival.arrivedAt
                #expect(handedOverAt - o.t >= 0.3 - 0.001 && handedOverAt - o.t < 0.6,
                        "held for the reorder window, not more")
                #expect(arrivedAt - o.t > -0.05 && arrivedAt - o.t < 0.25, "arrived with its receiver's batch")
                #expect(arrivedAt < handedOverAt - 0.1, "its arrival, not its hand-over")
            }
        }
        #expect(batches.count < 120 && batches.contains { $0.batch.count > 1 },
                "what leaves the reorder buffer together goes over together (\(batches.count) batches)")
        #expect(solver.siteStatistics.late == 0)
        #expect(receivers["rx-1"]?.status == nil || receivers["rx-1"]?.status == "online")
        for (publisher, client, _, task) in publishers {
            task.cancel()
            _ = await task.value
            #expect(publisher.statistics.published == 60 && publisher.statistics.dropped == 0)
            client.stop()
        }
        solver.stop()
        await task.value
        broker.kill()
    }

    @Test func theReceiverBuffersWhileTheBrokerIsDownDropsTheOldestAndDrainsWhenItIsBack() async throws {
        let broker = try await MosquittoBroker()
        let topics = try #require(SiteTopics(site: "t"))
        let client = try Self.client(broker, id: "rx-b")
        try client.start()
        var settings = SightingPublisher.Settings()
        settings.bufferLimit = 100
        let publisher = SightingPublisher(client: client, topics: topics, receiver: "rx-b", settings: settings,
                                          clock: SystemClock(), logger: Self.logger)
        let flusher = Task { await publisher.run() }
        #expect(await eventually { client.isConnected })
        broker.kill()
        #expect(await eventually { !client.isConnected })
        let now = SystemClock().now()
        for k in 0..<150 { publisher.offer(Self.observation(now + Double(k) * 0.001, rx: "rx-b", rssi: -Double(k))) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(publisher.statistics.buffered == 100 && publisher.statistics.dropped == 50, "oldest 50 dropped")
        // An outside subscriber sees what the receiver sends once the broker is back.
        try await broker.start()
        let watcher = try Self.client(broker, id: "watcher")
        try watcher.subscribe(topics.sightings(receiver: "rx-b"), qos: 1)
        try watcher.start()
        let batches = LockedValue<[SightingBatch]>([])
        let reader = Task {
            for await case .message(let m) in watcher.events {
                if let batch = try? SightingBatch.decode(m.payload) { batches.withLock { $0.append(batch) } }
            }
        }
        #expect(await eventually { watcher.isConnected })
        let solver = try Self.solver(broker, known: ["rx-b"])
        let (collected, task) = Self.run(solver)
        #expect(await eventually { solver.client.isConnected })
        // The receiver reconnects with backoff (at most 2 s here) and drains, oldest kept first.
        #expect(await eventually(seconds: 8) { publisher.statistics.published == 100 })
        #expect(await eventually { batches.value.flatMap(\.sightings).count == 100 })
        let sent = batches.value.flatMap(\.sightings)
        #expect(sent.first?.rssiDBm == -50 && sent.last?.rssiDBm == -149, "the 50 oldest were dropped")
        #expect(batches.value.allSatisfy { $0.clock >= now + 0.3 }, "batches stamped when sent, not when heard")
        // For live positioning the backlog is older than the reorder window: counted late, not delivered.
        #expect(await eventually { solver.siteStatistics.late == 100 })
        #expect(collected.count == 0)
        #expect(solver.receivers.first?.late == 100)
        flusher.cancel()
        client.stop()
        watcher.stop()
        await reader.value
        solver.stop()
        await task.value
        broker.kill()
    }

    /// A BlueDot receiver's own advertisement heard by another (`advertise`): the batch names its Eddystone id, and
    /// the solver makes it a link to that receiver; another site's receiver, with the same id, stays a beacon.
    @Test func receiversHearingEachOtherAreLinksBetweenThem() async throws {
        let broker = try await MosquittoBroker()
        let solver = try Self.solver(broker, known: ["rx-1", "rx-2"])
        let (collected, task) = Self.run(solver)
        #expect(await eventually { solver.client.isConnected })
        try await Task.sleep(for: .milliseconds(200))
        let rx2 = try #require(ReceiverBeacon(site: "t", receiver: "rx-2")).beaconID
        let elsewhere = try #require(ReceiverBeacon(site: "other", receiver: "rx-2")).beaconID
        let now = SystemClock().now()
        let batch = SightingBatch(receiver: "rx-1", sequence: 0, clock: now, sightings: [
            Observation(t: now, anchor: "rx-1", target: rx2, rssiDBm: -71),
            Observation(t: now, anchor: "rx-1", target: elsewhere, rssiDBm: -90),
        ])
        _ = try broker.publish(["-t", "bluedot/t/sightings/rx-1", "-m", String(decoding: batch.encoded(), as: UTF8.self)])
        #expect(await eventually { collected.count == 2 })
        let targets = Set(collected.observations.map(\.target))
        #expect(targets == ["rx-2", elsewhere], "\(collected.observations)")
        #expect(collected.observations.first { $0.target == "rx-2" }?.rssiDBm == -71)
        solver.stop()
        await task.value
        broker.kill()
    }

    @Test func badPayloadsOnEverySubscribedTopicAreCountedByKindAndSkipped() async throws {
        let broker = try await MosquittoBroker()
        let solver = try Self.solver(broker, known: ["rx-1"], espresense: "espresense")
        let (collected, task) = Self.run(solver)
        #expect(await eventually { solver.client.isConnected })
        try await Task.sleep(for: .milliseconds(200))
        let big = String(repeating: "x", count: 300 * 1024)
        let bigFile = broker.directory.appendingPathComponent("big")
        try big.write(to: bigFile, atomically: true, encoding: .utf8)
        let good = SightingBatch(receiver: "rx-1", sequence: 0, clock: SystemClock().now(), sightings: [
            Observation(t: SystemClock().now(), anchor: "rx-1", target: "ibeacon:x:1:1", rssiDBm: -60),
        ])
        let goodText = String(decoding: good.encoded(), as: UTF8.self)
        let cases: [([String], String)] = [
            (["-t", "bluedot/t/sightings/rx-1", "-m", "garbage"], "sightings:malformed"),
            (["-t", "bluedot/t/sightings/rx-1", "-m", String(goodText.prefix(40))], "sightings:malformed"),
            (["-t", "bluedot/t/sightings/rx-1", "-m", #"{"v":1,"receiver":"rx-1","clock":"now","sightings":[]}"#],
             "sightings:malformed"),
            (["-t", "bluedot/t/sightings/rx-1", "-f", bigFile.path], "sightings:oversized"),
            (["-t", "bluedot/t/sightings/rx-2", "-m", goodText], "sightings:receiver-mismatch"),
            (["-t", "bluedot/t/receivers/rx-1/status", "-m", "maybe"], "status:malformed"),
            (["-t", "bluedot/t/receivers/rx-1/telemetry", "-m", "[1]"], "telemetry:malformed"),
            (["-t", "espresense/devices/tag/kitchen", "-m", #"{"rssi":"loud"}"#], "espresense:wrong-type"),
            (["-t", "espresense/devices/tag/kitchen", "-m", "\u{1}\u{2}"], "espresense:malformed-json"),
            (["-t", "espresense/devices/tag/kitchen", "-m", #"{"mac":"c0"}"#], "espresense:missing-field"),
        ]
        for (arguments, _) in cases { _ = try broker.publish(arguments) }
        _ = try broker.publish(["-t", "bluedot/t/sightings/rx-1", "-m", goodText])
        var expected: [String: Int] = [:]
        for (_, kind) in cases { expected[kind, default: 0] += 1 }
        #expect(await eventually { solver.siteStatistics.rejected == expected }, "\(solver.siteStatistics.rejected)")
        #expect(await eventually { collected.count == 1 }, "the good batch still went through")
        solver.stop()
        await task.value
        broker.kill()
    }

    @Test func espresenseNodesOfBothFirmwareGenerationsAreReceivers() async throws {
        let broker = try await MosquittoBroker()
        // The registry knows Alice's phone by its ESPresense fingerprint and by its IRK.
        let devices = try #require(DeviceIdentifier(registry: try DeviceRegistry(devices: [
            Device(id: "alice-phone", name: "Alice's phone", irks: [IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b")!],
                   espresense: ["apple:1005:9-26"]),
        ])))
        let solver = try Self.solver(broker, known: ["kitchen", "office", "hall"], espresense: "espresense",
                                     measuredPower: ["kitchen": -59, "office": -59], devices: devices)
        let (collected, task) = Self.run(solver)
        #expect(await eventually { solver.client.isConnected })
        try await Task.sleep(for: .milliseconds(200))
        // A stranger's fingerprint and an unknown IRK: dropped, only counted.
        _ = try broker.publish(["-t", "espresense/devices/apple:1007:11-4/office", "-m", #"{"rssi":-70}"#])
        _ = try broker.publish(["-t", "espresense/devices/irk:0f1e2d3c4b5a69788796a5b4c3d2e1f0/office", "-m", #"{"rssi":-70}"#])
        // Current firmware (rssiVar, rxAdj) and an older one (idType, raw, no rssiVar).
        _ = try broker.publish(["-t", "espresense/devices/iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-7/kitchen", "-m",
            #"{"id":"iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-7","mac":"c00000000001","rssi@1m":-59,"rssi":-71,"rxAdj":-2,"rssiVar":1.3,"distance":3.2,"var":0.1,"int":100}"#])
        _ = try broker.publish(["-t", "espresense/devices/apple:1005:9-26/office", "-m",
            #"{"id":"apple:1005:9-26","idType":10,"mac":"d00000000002","rssi@1m":-65,"rssi":-80,"raw":5.1,"distance":4.0,"speed":0.1,"mobility":0}"#])
        _ = try broker.publish(["-t", "espresense/rooms/kitchen/status", "-m", "online"])
        _ = try broker.publish(["-t", "espresense/devices/irk:ec0234a357c8ad05341010a60a397d9b/garage", "-m", #"{"rssi":-66}"#])
        // Nodes hear each other: office's own advertisement heard in the kitchen is a link between two receivers
        // (target: the node, an anchor); a node the venue does not have is a stranger.
        _ = try broker.publish(["-t", "espresense/devices/node:office/kitchen", "-m", #"{"rssi@1m":-59,"rssi":-68}"#])
        _ = try broker.publish(["-t", "espresense/devices/node:attic/kitchen", "-m", #"{"rssi":-75}"#])
        // A BlueDot receiver ("hall", advertising its ReceiverBeacon) heard by the nodes: ESPresense names the frame
        // `eddy:<namespace>-<instance>`, today's firmware with the namespace's fifth octet printed twice.
        let hall = try #require(ReceiverBeacon(site: "t", receiver: "hall")).beaconID.split(separator: ":")
        let (namespace, instance) = (Array(hall[1]), String(hall[2]))
        let firmware = String(namespace[0..<10]) + String(namespace[8..<10]) + String(namespace[10...])
        _ = try broker.publish(["-t", "espresense/devices/eddy:\(firmware)-\(instance)/kitchen", "-m",
                                #"{"rssi@1m":-59,"rssi":-77}"#])
        _ = try broker.publish(["-t", "espresense/devices/eddy:\(String(namespace))-\(instance)/office", "-m",
                                #"{"rssi@1m":-59,"rssi":-73}"#])
        #expect(await eventually { collected.count == 6 })
        #expect(await eventually { solver.siteStatistics.strangers == 3 })
        let link = collected.observations.first { $0.target == "office" }
        #expect(link?.anchor == "kitchen" && link?.rssiDBm == -68, "\(collected.observations)")
        let hallLinks = collected.observations.filter { $0.target == "hall" }.map { "\($0.anchor) \($0.rssiDBm)" }
        #expect(hallLinks.sorted() == ["kitchen -77.0", "office -73.0"], "\(collected.observations)")
        let byAnchor = Dictionary(uniqueKeysWithValues: collected.observations
            .filter { $0.target != "office" && $0.target != "hall" }.map { ($0.anchor, $0) })
        // ESPresense's iBeacon id becomes BlueDot's canonical one; its fingerprint and irk: id of a registry
        // device become that device's id.
        #expect(byAnchor["kitchen"]?.target == "ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:7")
        #expect(byAnchor["office"]?.target == "alice-phone")
        #expect(byAnchor["garage"]?.target == "alice-phone")
        #expect(!collected.observations.contains { $0.target.hasPrefix("apple:") || $0.target.hasPrefix("irk:") })
        // RSSI moved onto the venue's model of the node: the firmware's distance from rssi and rssi@1m is kept.
        #expect(byAnchor["kitchen"]?.rssiDBm == -71, "rssi@1m -59 is the model's own")
        #expect(byAnchor["office"]?.rssiDBm == -74, "-80 against -65 at 1 m is -74 against the model's -59")
        #expect(byAnchor["office"]?.txPowerDBm == -65)
        #expect(await eventually { solver.receivers.first { $0.id == "kitchen" }?.status == "online" })
        #expect(solver.receivers.allSatisfy { $0.kind == .espresense })
        solver.stop()
        await task.value
        broker.kill()
    }
}
