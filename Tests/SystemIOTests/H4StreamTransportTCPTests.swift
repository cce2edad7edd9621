#if canImport(Glibc)
import Glibc
#endif
import HCI
import Testing
@testable import SystemIO

extension LinuxTransportTests {
    @Suite struct H4OverTCP {
        @Test func deliversPacketsSentInFragments() async throws {
            let server = try LoopbackServer()
            let transport = try H4StreamTransport(tcp: server.endpoint)
            let collector = await PacketCollector.start(try await transport.open())
            let peer = try server.accept()
            defer { System.close(peer) }
            let first = Bytes.commandComplete(0x0C03)
            let second = Bytes.commandComplete(0x200B)
            // One byte at a time, then the rest of the first packet together with all of the second.
            for byte in first.prefix(3) {
                try Peer.write(peer, [byte])
                try await Task.sleep(for: .milliseconds(2))
            }
            try Peer.write(peer, Array(first.dropFirst(3)) + second)
            let packets = try await collector.waitForPackets(2)
            #expect(packets == [HCIPacket(type: .event, bytes: Array(first.dropFirst())),
                                HCIPacket(type: .event, bytes: Array(second.dropFirst()))])
            await transport.close()
        }

        @Test func sendsWholeH4Packets() async throws {
            let server = try LoopbackServer()
            let transport = try H4StreamTransport(tcp: server.endpoint)
            let collector = await PacketCollector.start(try await transport.open())
            let peer = try server.accept()
            defer { System.close(peer) }
            try await transport.send(Bytes.reset)
            #expect(try Peer.read(peer, count: 4) == [0x01, 0x03, 0x0C, 0x00])
            await transport.close()
            _ = try await collector.waitForEnd()
        }

        @Test func peerCloseFinishesTheStreamAndOpenReconnects() async throws {
            let server = try LoopbackServer()
            let transport = try H4StreamTransport(tcp: server.endpoint)
            for round in 0..<3 {
                let collector = await PacketCollector.start(try await transport.open())
                let peer = try server.accept()
                try Peer.write(peer, Bytes.commandComplete(UInt16(0x0C00 + round)))
                _ = try await collector.waitForPackets(1)
                System.close(peer)
                let ending = try await collector.waitForEnd()
                #expect(throws: Never.self) { try ending.get() }
                await #expect(throws: SystemIOError.notOpen(transport: transport.name)) {
                    try await transport.send(Bytes.reset)
                }
            }
            await transport.close()
            #expect(try Peer.sockets(connectedToPort: server.port).isEmpty)
        }

        @Test func closeInterruptsAPendingReadPromptly() async throws {
            let server = try LoopbackServer()
            let transport = try H4StreamTransport(tcp: server.endpoint)
            let collector = await PacketCollector.start(try await transport.open())
            let peer = try server.accept()
            defer { System.close(peer) }
            try await Task.sleep(for: .milliseconds(20))  // the reader is now blocked waiting for bytes
            let started = ContinuousClock.now
            await transport.close()
            let ending = try await collector.waitForEnd(timeout: .seconds(1))
            #expect(ContinuousClock.now - started < .milliseconds(500))
            #expect(throws: Never.self) { try ending.get() }
            #expect(try Peer.sockets(connectedToPort: server.port).isEmpty)  // the transport's end is closed
        }

        @Test func lostSyncThrowsNamingTheTransport() async throws {
            let server = try LoopbackServer()
            let transport = try H4StreamTransport(tcp: server.endpoint)
            let collector = await PacketCollector.start(try await transport.open())
            let peer = try server.accept()
            defer { System.close(peer) }
            try Peer.write(peer, Bytes.commandComplete(0x0C03) + [0xFF, 0x00])
            let ending = try await collector.waitForEnd()
            #expect(await collector.packets.count == 1)
            #expect(throws: SystemIOError.framingLost(transport: transport.name,
                                                      .unknownPacketIndicator(0xFF, streamOffset: 7))) {
                try ending.get()
            }
            guard case let .failure(error) = ending else { return }
            let message = String(describing: error)
            #expect(message.contains("tcp:127.0.0.1:\(server.port)"))
            #expect(message.contains("unknown packet indicator 0xff at byte 7"))
            await transport.close()
        }

        @Test func refusedConnectionIsAClearError() async throws {
            let port: UInt16
            do {
                let server = try LoopbackServer()
                port = server.port
            }  // closed again: nobody listens on `port` now
            let transport = try H4StreamTransport(tcp: "127.0.0.1:\(port)")
            do {
                _ = try await transport.open()
                Issue.record("open() succeeded without a listener")
            } catch let error as SystemIOError {
                guard case let .system(name, systemError) = error else {
                    Issue.record("unexpected error \(error)")
                    return
                }
                #expect(name == "tcp:127.0.0.1:\(port)")
                #expect(systemError.symbolicName == "ECONNREFUSED")
                #expect(error.description.hasPrefix("tcp:127.0.0.1:\(port): connect failed: ECONNREFUSED"))
            }
        }

        /// A listener that never accepts, with its accept queue full: Linux drops further SYNs, so connect hangs.
        @Test func connectGivesUpAtTheTimeout() async throws {
            let server = try LoopbackServer(backlog: 0)
            var transports: [H4StreamTransport] = []
            var failure: SystemIOError?
            let started = ContinuousClock.now
            for _ in 0..<4 where failure == nil {
                let transport = try H4StreamTransport(tcp: server.endpoint, connectTimeout: .milliseconds(300))
                transports.append(transport)
                do {
                    _ = try await transport.open()
                } catch let error as SystemIOError {
                    failure = error
                }
            }
            #expect(failure == .connectTimedOut(transport: "tcp:\(server.endpoint)", timeout: .milliseconds(300)))
            #expect(ContinuousClock.now - started < .seconds(3))
            for transport in transports { await transport.close() }
        }

        @Test func unresolvableHostIsAClearError() async throws {
            let transport = try H4StreamTransport(tcp: "no-such-host.invalid:9000")
            await #expect {
                _ = try await transport.open()
            } throws: { error in
                guard case let .cannotResolve(host, _) = error as? SystemIOError else { return false }
                return host == "no-such-host.invalid"
            }
        }
    }
}
