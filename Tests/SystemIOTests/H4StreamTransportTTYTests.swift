#if canImport(Glibc)
import Glibc
#endif
import HCI
import Testing
@testable import SystemIO

extension LinuxTransportTests {
    /// H4 over a pseudo-terminal: the test holds the master side, the transport opens the slave as a tty.
    @Suite struct H4OverTTY {
        @Test func deliversFragmentsAndSendsCommands() async throws {
            let (master, path) = try System.openPseudoTerminal()
            defer { System.close(master) }
            let transport = try H4StreamTransport(serialPath: path, baudRate: 115200)
            #expect(transport.name == "tty:\(path)@115200")
            let collector = await PacketCollector.start(try await transport.open())
            let event = Bytes.commandComplete(0x0C03)
            try Peer.write(master, Array(event.prefix(2)))
            try await Task.sleep(for: .milliseconds(5))
            try Peer.write(master, Array(event.dropFirst(2)) + event)
            let packets = try await collector.waitForPackets(2)
            #expect(packets == Array(repeating: HCIPacket(type: .event, bytes: Array(event.dropFirst())), count: 2))
            try await transport.send(Bytes.reset)
            // Raw mode: no output processing, so the bytes arrive exactly as sent.
            #expect(try Peer.read(master, count: 4) == [0x01, 0x03, 0x0C, 0x00])
            await transport.close()
            let ending = try await collector.waitForEnd()
            #expect(throws: Never.self) { try ending.get() }
        }

        @Test func rawModeKeepsControlBytes() async throws {
            let (master, path) = try System.openPseudoTerminal()
            defer { System.close(master) }
            let transport = try H4StreamTransport(serialPath: path, baudRate: 921600, flowControl: false)
            let collector = await PacketCollector.start(try await transport.open())
            // An event whose parameters hold bytes a cooked tty would eat or translate: CR, LF, ^C, ^D, ^S, DEL.
            let parameters: [UInt8] = [0x0D, 0x0A, 0x03, 0x04, 0x13, 0x7F, 0x00, 0xFF]
            try Peer.write(master, [0x04, 0xFF, UInt8(parameters.count)] + parameters)
            let packets = try await collector.waitForPackets(1)
            #expect(packets.first == HCIPacket(type: .event, bytes: [0xFF, UInt8(parameters.count)] + parameters))
            await transport.close()
        }

        @Test func closeUnblocksPromptlyAndReopenWorks() async throws {
            let (master, path) = try System.openPseudoTerminal()
            defer { System.close(master) }
            let transport = try H4StreamTransport(serialPath: path)
            for _ in 0..<3 {
                let collector = await PacketCollector.start(try await transport.open())
                try Peer.write(master, Bytes.commandComplete(0x0C03))
                _ = try await collector.waitForPackets(1)
                let started = ContinuousClock.now
                await transport.close()
                _ = try await collector.waitForEnd(timeout: .seconds(1))
                #expect(ContinuousClock.now - started < .milliseconds(500))
            }
            #expect(try Peer.descriptors(openOn: path).isEmpty)
        }

        @Test func hangUpFinishesTheStream() async throws {
            let (master, path) = try System.openPseudoTerminal()
            let transport = try H4StreamTransport(serialPath: path)
            let collector = await PacketCollector.start(try await transport.open())
            System.close(master)  // like unplugging the adapter: the slave now reads EIO
            let ending = try await collector.waitForEnd()
            #expect(throws: Never.self) { try ending.get() }
            await transport.close()
        }

        @Test func sendTimesOutWhenThePeerStopsReading() async throws {
            let (master, path) = try System.openPseudoTerminal()
            defer { System.close(master) }
            let transport = H4StreamTransport(
                endpoint: .serial(path: path, baudRate: try BaudRate(115200), flowControl: false),
                writeTimeout: .milliseconds(100))
            let collector = await PacketCollector.start(try await transport.open())
            // Nobody reads the master side, so the pty buffer fills and a write must give up, not hang.
            let big = Bytes.command(0x2008, [UInt8](repeating: 0x55, count: 255))
            let started = ContinuousClock.now
            await #expect(throws: SystemIOError.writeTimedOut(transport: transport.name)) {
                for _ in 0..<10_000 { try await transport.send(big) }
            }
            #expect(ContinuousClock.now - started < .seconds(5))
            await transport.close()
            _ = try await collector.waitForEnd()
        }

        @Test func missingDeviceIsAClearError() async throws {
            let transport = try H4StreamTransport(serialPath: "/dev/bluedot-no-such-tty")
            await #expect(throws: SystemIOError.system(
                transport: "tty:/dev/bluedot-no-such-tty@115200",
                SystemError(code: ENOENT, call: "open(/dev/bluedot-no-such-tty)"))) {
                _ = try await transport.open()
            }
        }
    }
}
