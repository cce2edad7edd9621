#if canImport(Glibc)
import Glibc
#endif
import CBlueZ
import Foundation
import HCI
import Testing
@testable import HCILinux

/// A test gave up waiting; says for what.
struct TimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Consumes a transport's packet stream in the background, so tests can wait for packets or the end with a
/// bounded timeout.
actor PacketCollector {
    private(set) var packets: [HCIPacket] = []
    /// nil while the stream runs; then `.success` for a normal finish or `.failure` with the thrown error.
    private(set) var ending: Result<Void, any Error>?
    private var task: Task<Void, Never>?

    static func start(_ stream: AsyncThrowingStream<HCIPacket, any Error>) async -> PacketCollector {
        let collector = PacketCollector()
        await collector.run(stream)
        return collector
    }

    private func run(_ stream: AsyncThrowingStream<HCIPacket, any Error>) {
        task = Task {
            do {
                for try await packet in stream { self.append(packet) }
                self.end(.success(()))
            } catch {
                self.end(.failure(error))
            }
        }
    }

    private func append(_ packet: HCIPacket) { packets.append(packet) }
    private func end(_ result: Result<Void, any Error>) { ending = result }

    /// Waits until at least `count` packets arrived.
    func waitForPackets(_ count: Int, timeout: Duration = .seconds(5)) async throws -> [HCIPacket] {
        let deadline = ContinuousClock.now + timeout
        while packets.count < count {
            guard ContinuousClock.now < deadline, ending == nil else {
                throw TimedOut(what: "\(count) packet(s), got \(packets.count), ending \(String(describing: ending))")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        return packets
    }

    /// Waits until the stream ended and returns how.
    func waitForEnd(timeout: Duration = .seconds(5)) async throws -> Result<Void, any Error> {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let ending { return ending }
            guard ContinuousClock.now < deadline else { throw TimedOut(what: "the stream to end") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Stops consuming.
    func cancel() { task?.cancel() }
}

/// Bounded-wait helpers over raw descriptors, for the peer side of a link in tests.
enum Peer {
    /// Writes all bytes (the descriptor is blocking or has room).
    static func write(_ fd: Int32, _ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            guard let wrote = try System.write(fd, bytes[sent...], label: "test write") else {
                var fds = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)]
                _ = try System.poll(&fds, timeout: 1000)
                continue
            }
            sent += wrote
        }
    }

    /// Reads exactly `count` bytes within `timeout`.
    static func read(_ fd: Int32, count: Int, timeout: Duration = .seconds(5)) throws -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while out.count < count {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw TimedOut(what: "\(count) bytes from the transport, got \(out)") }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            guard try System.poll(&fds, timeout: Int32(left.milliseconds + 1)) > 0 else { continue }
            guard let got = try System.read(fd, into: &buffer, label: "test read") else { continue }
            guard got > 0 else { throw TimedOut(what: "\(count) bytes; the transport closed after \(out)") }
            out.append(contentsOf: buffer[0..<min(got, count - out.count)])
        }
        return out
    }

    /// The descriptors this process has open (/proc/self/fd) that satisfy `matches`.
    ///
    /// Leak checks look only at descriptors a transport under test could own (a socket connected to the test's
    /// server, the test's pty), so that other suites opening files in parallel cannot disturb them.
    static func openDescriptors(where matches: (Int32) -> Bool) throws -> [Int32] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { Int32($0) }.filter(matches)
    }

    /// Descriptors of TCP sockets whose peer is the given local port: the client ends connected to a test server.
    static func sockets(connectedToPort port: UInt16) throws -> [Int32] {
        try openDescriptors { fd in
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let result = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
            }
            return result == 0 && address.sin_family == sa_family_t(AF_INET) && UInt16(bigEndian: address.sin_port) == port
        }
    }

    /// Descriptors of sockets of the given address family (such as AF_BLUETOOTH).
    static func sockets(ofFamily family: Int32) throws -> [Int32] {
        try openDescriptors { fd in
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let result = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            return result == 0 && Int32(address.ss_family) == family
        }
    }

    /// Descriptors open on the given path (such as the slave side of a test pty).
    static func descriptors(openOn path: String) throws -> [Int32] {
        try openDescriptors { fd in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) == path
        }
    }
}

/// A listening TCP socket on 127.0.0.1 with an ephemeral port, built from the System wrappers.
final class LoopbackServer {
    let fd: Int32
    let port: UInt16

    init(backlog: Int32 = 4) throws {
        fd = try System.socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, label: "socket(test)")
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        try System.bind(fd, address, label: "bind(test)")
        try System.listen(fd, backlog: backlog, label: "listen(test)")
        port = try System.localPort(fd, label: "getsockname(test)")
    }

    /// `127.0.0.1:port`.
    var endpoint: String { "127.0.0.1:\(port)" }

    /// Accepts one connection within `timeout`.
    func accept(timeout: Duration = .seconds(5)) throws -> Int32 {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        guard try System.poll(&fds, timeout: Int32(timeout.milliseconds)) > 0 else {
            throw TimedOut(what: "a connection on port \(port)")
        }
        return try System.accept(fd, label: "accept(test)")
    }

    deinit { System.close(fd) }
}

/// HCI packets built by hand (Core Spec 5.4, Vol 4, Part E, §7).
enum Bytes {
    /// An HCI command packet: opcode, parameter length, parameters.
    static func command(_ opcode: UInt16, _ parameters: [UInt8] = []) -> HCIPacket {
        var writer = ByteWriter()
        writer.u16(opcode)
        writer.u8(UInt8(parameters.count))
        writer.append(parameters)
        return HCIPacket(type: .command, bytes: writer.bytes)
    }

    /// HCI Reset (OGF 0x03, OCF 0x0003).
    static let reset = command(0x0C03)

    /// A Command Complete event for `opcode` with status success, as H4 bytes.
    static func commandComplete(_ opcode: UInt16) -> [UInt8] {
        var writer = ByteWriter()
        writer.u8(HCIPacketType.event.rawValue)
        writer.u8(0x0E)
        writer.u8(4)
        writer.u8(1)  // Num_HCI_Command_Packets
        writer.u16(opcode)
        writer.u8(0x00)  // Status
        return writer.bytes
    }
}
