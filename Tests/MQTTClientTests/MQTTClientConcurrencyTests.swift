import BlueDotCore
import Foundation
import Logging
import Testing

@testable import Site

/// Debian's mosquitto broker, nil when not installed.
let mosquittoPath = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// The MQTT client's threads under load: libmosquitto's network thread calling back while Swift tasks publish,
/// subscribe, read events and stop, and a broker restart in the middle. `Tools/dev test` also runs this suite
/// under the thread sanitizer (Tools/tsan), where any unsynchronized access between the callbacks and Swift
/// fails the run.
@Suite(.serialized, .enabled(if: mosquittoPath != nil
                                  || ProcessInfo.processInfo.environment["BLUEDOT_REQUIRE_TOOLS"] == "1",
                             "mosquitto is not installed"))
struct MQTTClientConcurrencyTests {

    /// A mosquitto on a loopback port, started and killed by the test.
    final class Broker: @unchecked Sendable {
        let port: Int
        let configuration: String
        var process: Process?

        init() throws {
            let socket = try Self.probe()
            port = socket
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bluedot-mqtt-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            configuration = directory.appendingPathComponent("mosquitto.conf").path
            // No queue limit: mosquitto drops QoS 1 messages queued beyond 1,000 for a subscriber that falls behind
            // (as the reader does under the thread sanitizer), and this test is about the client's threads, not
            // the broker's limits.
            try "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 0\n"
                .write(toFile: configuration, atomically: true, encoding: .utf8)
        }

        func start() async throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: mosquittoPath ?? "mosquitto")
            p.arguments = ["-c", configuration]
            p.standardError = FileHandle.nullDevice
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            process = p
            try await Task.sleep(for: .milliseconds(300))
        }

        func kill() {
            guard let p = process, p.isRunning else { return }
            Foundation.kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
        }

        /// A free loopback port (bound to 0, released).
        static func probe() throws -> Int {
            let fd = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let ok = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
                }
            }
            guard ok else { throw CocoaError(.fileNoSuchFile) }
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }

    static func waitFor(_ seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func publishingFromManyTasksWhileTheNetworkThreadCallsBackAndTheBrokerRestarts() async throws {
        let broker = try Broker()
        try await broker.start()
        defer { broker.kill() }
        let logger = Logger(label: "test.mqtt")
        var options = try MQTTOptions(url: "mqtt://127.0.0.1:\(broker.port)")
        options.reconnectLargestDelaySeconds = 1
        options.clientID = "reader"
        let reader = try MQTTClient(options: options, logger: logger)
        options.clientID = "writer"
        let writer = try MQTTClient(options: options, logger: logger)
        try reader.subscribe("load/#", qos: 1)
        try reader.start()
        try writer.start()
        #expect(await Self.waitFor(5) { reader.isConnected && writer.isConnected })
        try await Task.sleep(for: .milliseconds(200))

        let received = LockedValue(0)
        let reading = Task {
            for await event in reader.events {
                if case .message = event { received.withLock { $0 += 1 } }
            }
        }
        // Four tasks publish 500 QoS 1 messages each while the network threads acknowledge and deliver.
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    for k in 0..<500 {
                        let message = MQTTMessage(topic: "load/\(task)", text: "\(k)", qos: 1)
                        while writer.publish(message) != .sent { try? await Task.sleep(for: .milliseconds(1)) }
                        _ = writer.inFlight
                        _ = writer.statistics
                    }
                }
            }
        }
        #expect(await Self.waitFor(10) { received.value == 2000 }, "received \(received.value) of 2000")
        #expect(await Self.waitFor(5) { writer.inFlight == 0 }, "every QoS 1 message acknowledged")

        // A broker restart while tasks keep publishing and reading counters.
        let publishing = Task {
            var k = 0
            while !Task.isCancelled {
                _ = writer.publish(MQTTMessage(topic: "load/restart", text: "\(k)", qos: 1))
                _ = writer.isConnected
                k += 1
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
        broker.kill()
        try await Task.sleep(for: .milliseconds(300))
        try await broker.start()
        #expect(await Self.waitFor(8) { reader.isConnected && writer.isConnected })
        let before = received.value
        #expect(await Self.waitFor(5) { received.value > before + 10 }, "messages flow after the restart")
        publishing.cancel()
        _ = await publishing.value
        // Stopping from other tasks while the reader still iterates.
        async let a: Void = writer.stop()
        async let b: Void = reader.stop()
        _ = await (a, b)
        await reading.value
        #expect(writer.statistics.connects == 2 && reader.statistics.connects == 2)
    }

    @Test func aClientWhoseOptionsAreRefusedIsFreedOnce() throws {
        // Regression: the initializer destroyed the libmosquitto handle and then `deinit` destroyed it again (heap
        // corruption that crashed a later test). glibc's allocator aborts on the second free.
        var options = try MQTTOptions(url: "mqtts://127.0.0.1:1")
        options.caFile = "/nonexistent/bluedot-ca.pem"
        for _ in 0..<200 {
            #expect(throws: MQTTError.self) { try MQTTClient(options: options, logger: Logger(label: "test.mqtt")) }
        }
    }
}
